package codec

import (
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/tidwall/gjson"
)

// providerMetadata is the delta field in which Vercel AI Gateway gives,
// on the chunk that finishes an answer, the provider's own account of it:
// for a Gemini model, provider_metadata.google.usageMetadata, Gemini's
// counts as Vertex AI or Google AI sent them.
const providerMetadata = "provider_metadata"

// geminiThoughtsApart adds to u, the usage of c, the reasoning tokens its
// completion_tokens leaves out, where a delta of c gives Gemini's own
// counts and they say so. Vercel AI Gateway passes Gemini's
// candidatesTokenCount as completion_tokens and its thoughtsTokenCount as
// completion_tokens_details.reasoning_tokens, with total_tokens the
// prompt's and the completion's alone, whereas OpenAI's completion_tokens
// holds the reasoning (charmbracelet/fantasy
// providertests/testdata/TestVercelThinking/gemini-3-pro-preview,
// recorded; ai.google.dev/api/generate-content, UsageMetadata). Where the
// reasoning tokens are more than the completion's, usageOf has added them
// already; where they are fewer, only Gemini's counts tell, and only
// where Gemini's totalTokenCount, the prompt's, the tool results', the
// thoughts' and the candidates', shows that candidatesTokenCount leaves
// the thoughts out: on the Gemini API it has held them
// (BerriAI/litellm#10141, review; simonw/llm-gemini#75), and Vercel
// routes a Gemini model to Vertex AI or to the Gemini API. It is called
// on a chunk that reports a usage, and looks at its deltas only when the
// usage has reasoning tokens it did not add.
func geminiThoughtsApart(c *openai.ChatCompletionChunk, u *Usage) {
	if u.Reasoning <= 0 || u.Output != c.Usage.CompletionTokens {
		return
	}
	for i := range c.Choices {
		f, ok := c.Choices[i].Delta.JSON.ExtraFields[providerMetadata]
		if !ok {
			continue
		}
		m := gjson.Get(f.Raw(), "google.usageMetadata")
		candidates, total := m.Get("candidatesTokenCount").Int(), m.Get("totalTokenCount").Int()
		apart := total == m.Get("promptTokenCount").Int()+candidates+u.Reasoning+m.Get("toolUsePromptTokenCount").Int()
		if candidates == c.Usage.CompletionTokens && m.Get("thoughtsTokenCount").Int() == u.Reasoning && apart {
			u.Output += u.Reasoning
		}
		return
	}
}

// geminiThoughtsUncounted adds to u, the usage of c, the thoughts that
// Gemini's OpenAI-compatible endpoint leaves out of completion_tokens
// and counts in total_tokens only: it writes Gemini's
// candidatesTokenCount as completion_tokens and its totalTokenCount
// (the prompt's, the candidates', the tool results' and the thoughts':
// Vertex AI's GenerateContentResponse reference, as danny-avila/LibreChat#13006
// quotes it) as total_tokens, with no reasoning count. agentgateway
// captured a thinking gemini-2.5-flash whose 12 tokens of text are
// completion_tokens 12 beside prompt_tokens 7 and total_tokens 402
// (agentgateway/agentgateway 34871c59e,
// crates/llm/src/tests/response/completions/gemini_with_completion_tokens.json),
// and New API relayed one's 9 beside 11 and 88 (QuantumNous/new-api#1358);
// the thoughts are output Gemini bills (mozilla-ai/any-llm#1291).
// Read as written, the output was the text alone, none of it
// reasoning. The rule holds only for a Gemini model (see geminiModel)
// whose usage gives no reasoning count and whose output usageOf took
// from completion_tokens as written; the tokens past the prompt and the
// completion are then its reasoning, which the stream did not show as
// reasoning (see Timing.ReasoningTokens). A relay that counts Gemini's
// thoughts apart (Vercel AI Gateway, claude-code-router) gives their
// count, which usageOf has read. So does LiteLLM, which translates
// Gemini's own usageMetadata and gives the prompt's tokens per modality
// (prompt_tokens_details.text_tokens: litellm/llms/vertex_ai/gemini
// vertex_and_google_ai_studio_gemini.py, _calculate_usage); where no
// thought was counted, its total still holds the tool-use prompt of a
// grounded request, which no count beside it gives
// (BerriAI/litellm#33530): no output, and the rule steps aside from a
// usage so detailed.
func geminiThoughtsUncounted(c *openai.ChatCompletionChunk, u *Usage) {
	if u.Reasoning != 0 || u.Prompt < 0 || u.Output < 0 || u.Output != c.Usage.CompletionTokens || !geminiModel(c.Model) {
		return
	}
	if c.Usage.PromptTokensDetails.JSON.TextTokens.Valid() {
		return
	}
	if thoughts := c.Usage.TotalTokens - u.Prompt - u.Output; thoughts > 0 {
		u.Output += thoughts
		u.Reasoning = thoughts
	}
}

// geminiModel reports whether model names a Gemini model as Gemini's
// OpenAI-compatible endpoint answers it ("gemini-2.5-flash"), or as
// Vertex AI's names it, under its publisher ("google/gemini-2.5-flash").
func geminiModel(model string) bool {
	return strings.HasPrefix(strings.TrimPrefix(model, "google/"), "gemini-")
}

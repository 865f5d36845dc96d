package tokenpace_test

import (
	"context"
	"strings"
	"testing"

	"github.com/tokenpace/tokenpace"
)

// TestWholeAnswerGeminiThoughtsInTotalOnly: the answer agentgateway
// captured from Gemini's OpenAI-compatible endpoint
// (agentgateway/agentgateway 34871c59e, gemini_with_completion_tokens.json)
// writes completion_tokens 12, the text's, beside prompt_tokens 7 and a
// total_tokens of 402 that holds the 383 thought tokens too. The
// caller's Timing counts 395 output tokens, 383 of them reasoning
// (before: 12, and none reasoning, as if the model had not thought).
func TestWholeAnswerGeminiThoughtsInTotalOnly(t *testing.T) {
	body := `{"model":"gemini-2.5-flash","usage":{"prompt_tokens":7,"completion_tokens":12,"total_tokens":402},` +
		`"choices":[{"message":{"content":"Hello! I'm functioning perfectly and ready to assist.\n\n","role":"assistant"},` +
		`"finish_reason":"length","index":0}],"created":1775595257,"id":"9W7VaabzK7KPjMcPnYGiuAU","object":"chat.completion"}`
	var tm *tokenpace.Timing
	c, err := answeringClient("application/json", body).New(context.Background(), chat("gemini-2.5-flash", 400), tokenpace.WithTimingInto(&tm))
	if err != nil {
		t.Fatalf("New: %v, want the answer", err)
	}
	if len(c.Choices) != 1 || c.Choices[0].Message.Content != "Hello! I'm functioning perfectly and ready to assist.\n\n" {
		t.Fatalf("New = %+v, want the captured text", c.Choices)
	}
	if tm == nil {
		t.Fatal("no Timing")
	}
	if tm.PromptTokens != 7 || tm.OutputTokens != 395 || tm.ReasoningTokens != 383 || !tm.UsageReported {
		t.Errorf("Timing = %d prompt, %d output, %d reasoning (reported %v); want 7, 395, 383 (true)",
			tm.PromptTokens, tm.OutputTokens, tm.ReasoningTokens, tm.UsageReported)
	}
}

// TestStreamGeminiThoughtsInTotalOnly: the same usage on a stream's
// finish chunk, after the text. The caller reads the text whole and no
// error; its Timing counts 395 output tokens, 383 of them reasoning the
// stream did not show, and Accumulated().Usage says 7/395/402, with the
// 383 as its reasoning tokens (before: 12 output tokens, 7/12/402).
func TestStreamGeminiThoughtsInTotalOnly(t *testing.T) {
	chunk := func(delta, finish, usage string) string {
		return `data: {"choices":[{"delta":` + delta + `,"index":0` + finish + `}],"created":1775595257,` +
			`"id":"9W7VaabzK7KPjMcPnYGiuAU","model":"gemini-2.5-flash","object":"chat.completion.chunk"` + usage + "}\n\n"
	}
	body := chunk(`{"content":"Hello! I'm functioning","role":"assistant"}`, "", "") +
		chunk(`{"content":" perfectly and ready to assist.\n\n","role":"assistant"}`, `,"finish_reason":"length"`,
			`,"usage":{"completion_tokens":12,"prompt_tokens":7,"total_tokens":402}`) +
		"data: [DONE]\n\n"
	s := answeringClient("text/event-stream", body).NewStreaming(context.Background(), chat("gemini-2.5-flash", 400))
	defer s.Close()
	var text strings.Builder
	for s.Next() {
		for _, ch := range s.Current().Choices {
			text.WriteString(ch.Delta.Content)
		}
	}
	if err := s.Err(); err != nil {
		t.Fatalf("Err = %v, want nil", err)
	}
	if got := text.String(); got != "Hello! I'm functioning perfectly and ready to assist.\n\n" {
		t.Errorf("text = %q, want the answer whole", got)
	}
	tm := s.Timing()
	if tm.PromptTokens != 7 || tm.OutputTokens != 395 || tm.ReasoningTokens != 383 || tm.FinishReason != "length" {
		t.Errorf("Timing = %d prompt, %d output, %d reasoning, finish %q; want 7, 395, 383, \"length\"",
			tm.PromptTokens, tm.OutputTokens, tm.ReasoningTokens, tm.FinishReason)
	}
	u := s.Accumulated().Usage
	if u.PromptTokens != 7 || u.CompletionTokens != 395 || u.TotalTokens != 402 || u.CompletionTokensDetails.ReasoningTokens != 383 {
		t.Errorf("Accumulated().Usage = %d/%d/%d, %d reasoning; want 7/395/402, 383",
			u.PromptTokens, u.CompletionTokens, u.TotalTokens, u.CompletionTokensDetails.ReasoningTokens)
	}
}

// TestStreamGeminiGroundedLiteLLMNotThoughts: LiteLLM, translating a
// grounded Gemini answer with no thoughts, writes a total_tokens that
// holds the tool-use prompt no other count gives (BerriAI/litellm#33530:
// the gap is toolUsePromptTokenCount), beside the prompt's tokens per
// modality. The caller's Timing counts the 40 tokens streamed and none
// of reasoning, and its TPOT is over them (before: 65 output tokens, 25
// of them reasoning).
func TestStreamGeminiGroundedLiteLLMNotThoughts(t *testing.T) {
	body := `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gemini-2.0-flash","choices":[{"index":0,"delta":{"role":"assistant","content":"Grounded answer."}}]}` + "\n\n" +
		`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gemini-2.0-flash","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],` +
		`"usage":{"prompt_tokens":100,"completion_tokens":40,"total_tokens":165,"prompt_tokens_details":{"cached_tokens":null,"audio_tokens":null,"text_tokens":100}}}` + "\n\n" +
		"data: [DONE]\n\n"
	s := answeringClient("text/event-stream", body).NewStreaming(context.Background(), chat("gemini-2.0-flash", 400))
	defer s.Close()
	for s.Next() {
	}
	if err := s.Err(); err != nil {
		t.Fatalf("Err = %v, want nil", err)
	}
	tm := s.Timing()
	if tm.PromptTokens != 100 || tm.OutputTokens != 40 || tm.ReasoningTokens != 0 {
		t.Errorf("Timing = %d prompt, %d output, %d reasoning; want 100, 40, 0",
			tm.PromptTokens, tm.OutputTokens, tm.ReasoningTokens)
	}
	if u := s.Accumulated().Usage; u.CompletionTokens != 40 || u.CompletionTokensDetails.ReasoningTokens != 0 {
		t.Errorf("Accumulated().Usage = %d completion, %d reasoning; want 40, 0", u.CompletionTokens, u.CompletionTokensDetails.ReasoningTokens)
	}
}

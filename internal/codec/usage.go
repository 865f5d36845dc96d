package codec

import (
	"encoding/json"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/respjson"
	"github.com/openai/openai-go/v3/responses"
	"github.com/tidwall/gjson"
)

// Usage is the token counts an event reports: of the prompt, of its
// tokens served from the prompt cache, and of the output. It holds only
// the counts, so that an event queued until its caller takes it stays
// small.
type Usage struct {
	Prompt, Cached, Output int64
	// Reasoning is how many of the Output tokens the server says went to
	// reasoning (completion_tokens_details.reasoning_tokens).
	Reasoning int64
	// Rejected is how many of the Output tokens the server says were a
	// Predicted Output's tokens it rejected
	// (completion_tokens_details.rejected_prediction_tokens): counted and
	// billed, never streamed.
	Rejected int64
}

// MaxUsageTokens bounds a token count a server reports: no context comes
// near it.
const MaxUsageTokens = 1 << 32

// Trusted reports whether u can be taken as the server's word: no count
// negative, none past MaxUsageTokens.
func (u Usage) Trusted() bool {
	return u.Prompt >= 0 && u.Cached >= 0 && u.Output >= 0 && u.Prompt <= MaxUsageTokens && u.Output <= MaxUsageTokens
}

// hasCounts reports whether a usage object holds a token count: "usage":
// {} is none, and so is one whose counts are all zero, which no prompt
// gives: a server that does not count sends it (LocalAI with a backend
// that reports no usage, such as its cloud-proxy, after an answer of
// many tokens; Ollama in every completions chunk before the last;
// simple-one-api in the response.completed it makes of a chat stream).
// A total alone is none either: MiniMax's chatcompletion_v2 ends a stream
// with an event whose usage is {"total_tokens": 73} and nothing else
// (platform.minimax.io/docs/api-reference/text-post, its Stream example),
// which says neither how long the prompt was nor how many tokens were
// streamed; read as a usage, it reported 0 of each, and TPOT over none.
func hasCounts(u *openai.CompletionUsage) bool {
	return counted(u.PromptTokens, u.CompletionTokens)
}

// counted reports whether a usage's prompt (or input) and output counts
// hold a count: not both zero, whatever its total (see hasCounts).
func counted(prompt, output int64) bool { return prompt != 0 || output != 0 }

// usageOf returns the counts of u, as the chat and completions APIs send
// them. The prompt tokens served from the cache are
// prompt_tokens_details.cached_tokens, or, from a server that counts
// them under a name of its own beside prompt_tokens, cached_tokens
// (Moonshot) or prompt_cache_hit_tokens (DeepSeek); prompt_tokens counts
// them in all three. The output counts the reasoning tokens, as OpenAI's
// completion_tokens does, also from a server whose completion_tokens
// leaves them out: xAI's total_tokens is then the prompt's, the
// completion's and the reasoning's (and so is claude-code-router's for
// Gemini, whose reasoning count is under output_tokens_details: see
// reasoningTokens); DeepInfra's, for Gemini models, may
// leave them out too, but its reasoning_tokens then exceed its
// completion_tokens, which cannot hold them (vercel/ai#12214, #12242).
func usageOf(u openai.CompletionUsage) Usage {
	cached := u.PromptTokensDetails.CachedTokens
	for _, k := range [...]string{"cached_tokens", "prompt_cache_hit_tokens"} {
		if cached != 0 {
			break
		}
		cached = extraCount(u.JSON.ExtraFields, k)
	}
	prompt := promptWithCache(u, cached)
	output, r := u.CompletionTokens, reasoningTokens(u)
	switch {
	case completionUncounted(u, prompt):
		output = u.TotalTokens - prompt
	case r > 0 && (u.TotalTokens == u.PromptTokens+u.CompletionTokens+r || r > u.CompletionTokens):
		output += r
	}
	r = min(max(r, 0), max(output, 0))
	return Usage{Prompt: prompt, Cached: cached, Output: output, Reasoning: r,
		Rejected: rejected(u.CompletionTokensDetails.RejectedPredictionTokens, output-r)}
}

// completionUncounted reports whether u, whose prompt counts prompt
// tokens (the cache's included), counts no completion token (its
// completion_tokens 0, null or left out) while its total_tokens holds
// more than the prompt: the rest is the output, as OpenAI's total is the
// prompt's and the completion's. Gemini's OpenAI-compatible endpoint
// counts as completion_tokens Gemini's candidatesTokenCount alone, the
// thoughts only in its total: a thinking model cut by max_tokens before
// any text is answered with completion_tokens 0 and a larger total
// (agentgateway/agentgateway#1464, #1465: the answer it captured,
// gemini_zero_completion_tokens.json, prompt 7, completion 0, total 8),
// or with completion_tokens left out (the body of its test
// completions_response_missing_message_and_usage_fields); its total is
// the prompt's, the thoughts' and the candidates' (mozilla-ai/any-llm#1290,
// a usage_metadata printed). Read as 0, the output billed and generated
// was none. No server in the corpus writes a zero or no completion
// count beside a total larger than its prompt for another reason.
func completionUncounted(u openai.CompletionUsage, prompt int64) bool {
	return u.CompletionTokens == 0 && prompt >= 0 && u.TotalTokens > prompt
}

// rejected returns the rejected prediction tokens n that a usage counts
// among its output, of which rest are not reasoning: OpenAI's
// completion_tokens counts them (platform.openai.com/docs/guides/predicted-outputs).
// More of them than rest cannot be in it: a server whose count leaves
// them out, whose output is then the streamed tokens', and 0 are.
func rejected(n, rest int64) int64 {
	if n <= 0 || n > rest {
		return 0
	}
	return n
}

// inputCached returns the input tokens a Responses usage's details say
// were read from the prompt cache: cached_tokens, as the API names them,
// or, where that is absent, cache_read_input_tokens, Anthropic's name,
// under which Perplexity's Agent API counts them
// (perplexityai/perplexity-py types/responses_usage.py, InputTokensDetails:
// cache_read_input_tokens and cache_creation_input_tokens only), within
// its input_tokens as the API counts them (vercel/ai
// packages/perplexity/src/convert-perplexity-usage.ts). Read on the final
// event only.
func inputCached(d *responses.ResponseUsageInputTokensDetails) int64 {
	if d.CachedTokens != 0 {
		return d.CachedTokens
	}
	return max(extraCount(d.JSON.ExtraFields, "cache_read_input_tokens"), 0)
}

// promptWithCache returns the prompt tokens of u, whose cached tokens are
// cached. OpenAI's prompt_tokens counts the tokens served from the cache,
// so that they are never more than it; a relay of Anthropic's Messages API
// or of Bedrock's Converse (agentgateway, crates/llm/src/conversion
// messages.rs and bedrock.rs) gives as prompt_tokens their input_tokens,
// which leave out the tokens read from the cache and those written to it
// (cache_creation_input_tokens). Where the cached tokens are more than
// prompt_tokens, prompt_tokens can only have left them out, and both are
// added to it; where they are not, nothing tells the two counts apart.
func promptWithCache(u openai.CompletionUsage, cached int64) int64 {
	return withCache(u.PromptTokens, cached, u.JSON.ExtraFields)
}

// inputWithCache is promptWithCache for a Responses usage: its
// input_tokens, with the cached tokens and those written to the cache
// (cache_creation_input_tokens, in its details or beside its counts)
// added where the cached tokens are more than it.
func inputWithCache(u *responses.ResponseUsage, cached int64) int64 {
	extra := u.InputTokensDetails.JSON.ExtraFields
	if _, ok := extra["cache_creation_input_tokens"]; !ok {
		extra = u.JSON.ExtraFields
	}
	return withCache(u.InputTokens, cached, extra)
}

// withCache returns prompt, or, where cached is more than it, prompt with
// cached and the cache_creation_input_tokens of extra added (see
// promptWithCache).
func withCache(prompt, cached int64, extra map[string]respjson.Field) int64 {
	if cached <= prompt {
		return prompt
	}
	return prompt + cached + max(extraCount(extra, "cache_creation_input_tokens"), 0)
}

// chunkUsage returns the usage a chat chunk reports, and whether it
// reports one: its usage object (see usageIn), else the one a choice
// carries (Moonshot sends the usage in the finish chunk's choice), else
// the one in its x_groq extension (Groq sends the usage of a stream
// there, in its last chunk, and at the top level only when include_usage
// was asked for: groq/groq-python types/chat/chat_completion_chunk.py).
func chunkUsage(c *openai.ChatCompletionChunk) (Usage, bool) {
	if u, ok := usageIn(&c.Usage, c.JSON.Usage.Valid(), c.JSON.ExtraFields); ok {
		geminiThoughtsApart(c, &u)
		geminiThoughtsUncounted(c, &u)
		return u, true
	}
	for i := range c.Choices {
		if u, ok := choiceUsage(c.Choices[i].JSON.ExtraFields["usage"].Raw()); ok {
			return u, true
		}
	}
	if f, ok := c.JSON.ExtraFields["x_groq"]; ok {
		return choiceUsage(gjson.Get(f.Raw(), "usage").Raw)
	}
	return Usage{}, false
}

// usageIn returns the counts of u, the usage object of a chat chunk or a
// completion whose other fields are extra, and whether it holds any
// (present: the event has one). Where u gives no cached tokens, those of
// llama.cpp's timings (cache_n) count.
func usageIn(u *openai.CompletionUsage, present bool, extra map[string]respjson.Field) (Usage, bool) {
	if !present || !hasCounts(u) {
		return Usage{}, false
	}
	out := usageOf(*u)
	if out.Cached == 0 {
		out.Cached = timingsCached(extra)
	}
	return out, true
}

// choiceUsage decodes raw, a usage object that rides beside a chunk's own
// (on a choice, in an extension; an extra field is never Valid: respjson
// marks it unexpected); ok is false when there is none, or it holds no
// token count.
func choiceUsage(raw string) (Usage, bool) {
	if raw == "" || raw == "null" {
		return Usage{}, false
	}
	var cu openai.CompletionUsage
	if json.Unmarshal([]byte(raw), &cu) != nil || !hasCounts(&cu) {
		return Usage{}, false
	}
	return usageOf(cu), true
}

// timingsCached returns the prompt tokens llama.cpp's server says it took
// from its cache (timings.cache_n), or 0.
func timingsCached(extra map[string]respjson.Field) int64 {
	var t struct {
		CacheN int64 `json:"cache_n"`
	}
	if json.Unmarshal([]byte(extra["timings"].Raw()), &t) != nil {
		return 0
	}
	return t.CacheN
}

// extraCount returns the integer of an extra field k, or 0.
func extraCount(extra map[string]respjson.Field, k string) int64 {
	f, ok := extra[k]
	if !ok {
		return 0
	}
	var n int64
	if json.Unmarshal([]byte(f.Raw()), &n) != nil {
		return 0
	}
	return n
}

// AddOutput adds n output tokens to the usage e reports, when it reports
// one: those a continuation's server did not count, the output of the
// tries before it that the caller received. Its counts, its chat view's
// usage and, for a completion, the completion's own (Current's) say the
// whole answer's output then, their totals to match.
func (e *Event) AddOutput(n int64) {
	if !e.HasUsage || n <= 0 {
		return
	}
	e.Usage.Output += n
	add := func(u *openai.CompletionUsage, valid bool) {
		if valid {
			u.CompletionTokens += n
			if u.TotalTokens > 0 {
				u.TotalTokens += n
			}
		}
	}
	if e.Chunk != nil {
		add(&e.Chunk.Usage, e.Chunk.JSON.Usage.Valid())
	}
	if c, ok := e.Orig.(*openai.Completion); ok {
		add(&c.Usage, c.JSON.Usage.Valid())
	}
}

package codec

import (
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestUsage checks the token counts decoded from each shape in which
// servers report usage, the prompt tokens served from the cache above all.
func TestUsage(t *testing.T) {
	chat := Chat(openai.ChatCompletionNewParams{}, true)
	completion := Completion(openai.CompletionNewParams{}, true)
	tests := []struct {
		name string
		req  Request
		data string
		want Usage
		ok   bool
	}{
		{"OpenAI cached_tokens", chat,
			`{"choices":[],"usage":{"prompt_tokens":900,"completion_tokens":4,"prompt_tokens_details":{"cached_tokens":768}}}`,
			Usage{900, 768, 4, 0, 0}, true},
		{"DeepSeek prompt_cache_hit_tokens", chat,
			`{"choices":[{"index":0,"delta":{"content":""},"finish_reason":"stop"}],"usage":{"prompt_tokens":1502,"completion_tokens":12,"prompt_cache_hit_tokens":1408,"prompt_cache_miss_tokens":94}}`,
			Usage{1502, 1408, 12, 0, 0}, true},
		{"standard field zero, DeepSeek's set", chat,
			`{"choices":[],"usage":{"prompt_tokens":30,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":0},"prompt_cache_hit_tokens":10}}`,
			Usage{30, 10, 2, 0, 0}, true},
		{"Moonshot usage in the choice", chat,
			`{"choices":[{"index":0,"delta":{},"finish_reason":"stop","usage":{"prompt_tokens":2989,"completion_tokens":8,"total_tokens":2997,"cached_tokens":2816}}]}`,
			Usage{2989, 2816, 8, 0, 0}, true},
		{"usage null in the choice", chat,
			`{"choices":[{"index":0,"delta":{"content":"a"},"usage":null}]}`, Usage{}, false},
		{"usage in the choice without counts", chat,
			`{"choices":[{"index":0,"delta":{"content":"a"},"usage":{}}]}`, Usage{}, false},
		{"every count zero: not counted (LocalAI's cloud-proxy)", chat,
			`{"choices":[],"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}}`, Usage{}, false},
		{"every count zero in a completion (Ollama before its last chunk)", completion,
			`{"id":"c","object":"text_completion","choices":[{"index":0,"text":"a"}],"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}}`, Usage{}, false},
		{"a total alone: not counted (MiniMax's chatcompletion_v2)", chat,
			`{"id":"02ff","choices":[{"finish_reason":"stop","index":0,"message":{"content":"Hello!","role":"assistant"}}],"object":"chat.completion","usage":{"total_tokens":73},"base_resp":{"status_code":0,"status_msg":""}}`, Usage{}, false},
		{"a prompt count alone", chat,
			`{"choices":[],"usage":{"prompt_tokens":26,"total_tokens":26}}`, Usage{26, 0, 0, 0, 0}, true},
		{"completion_tokens left out, the thoughts in the total (Gemini's OpenAI endpoint)", chat,
			`{"choices":[{"delta":{"role":"assistant"},"finish_reason":"length","index":0}],"usage":{"prompt_tokens":5,"total_tokens":12}}`,
			Usage{5, 0, 7, 0, 0}, true},
		{"completion_tokens 0 written beside a larger total (Gemini's OpenAI endpoint, captured)", chat,
			`{"choices":[{"delta":{"role":"assistant"},"finish_reason":"length","index":0}],"usage":{"prompt_tokens":7,"completion_tokens":0,"total_tokens":8}}`,
			Usage{7, 0, 1, 0, 0}, true},
		{"completion_tokens null beside a larger total", chat,
			`{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":null,"total_tokens":12}}`, Usage{5, 0, 7, 0, 0}, true},
		{"completion_tokens 0 and a total of the prompt: no output", chat,
			`{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":0,"total_tokens":5}}`, Usage{5, 0, 0, 0, 0}, true},
		{"completion_tokens 0, reasoning_tokens 7 in the total once", chat,
			`{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":0,"total_tokens":12,"completion_tokens_details":{"reasoning_tokens":7}}}`,
			Usage{5, 0, 7, 7, 0}, true},
		{"completion_tokens 0, Gemini's own counts beside (Vercel AI Gateway): the thoughts once", chat,
			`{"choices":[{"index":0,"delta":{"provider_metadata":{"google":{"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":0,"thoughtsTokenCount":7,"totalTokenCount":12}}}},"finish_reason":"length"}],"usage":{"prompt_tokens":5,"completion_tokens":0,"total_tokens":12,"completion_tokens_details":{"reasoning_tokens":7}}}`,
			Usage{5, 0, 7, 7, 0}, true},
		{"Gemini's OpenAI endpoint: its thoughts in total_tokens alone (agentgateway's capture)", chat,
			`{"choices":[{"delta":{},"finish_reason":"length","index":0}],"model":"gemini-2.5-flash","usage":{"prompt_tokens":7,"completion_tokens":12,"total_tokens":402}}`,
			Usage{7, 0, 395, 383, 0}, true},
		{"a Gemini model under Vertex AI's publisher name (New API's counts)", chat,
			`{"choices":[],"model":"google/gemini-2.5-flash","usage":{"prompt_tokens":11,"completion_tokens":9,"total_tokens":88}}`,
			Usage{11, 0, 77, 68, 0}, true},
		{"the same counts from a model not Gemini's: as written", chat,
			`{"choices":[],"model":"gpt-4o","usage":{"prompt_tokens":7,"completion_tokens":12,"total_tokens":402}}`,
			Usage{7, 0, 12, 0, 0}, true},
		{"Gemini, a total of the prompt and the completion: no thoughts", chat,
			`{"choices":[],"model":"gemini-2.5-flash","usage":{"prompt_tokens":7,"completion_tokens":12,"total_tokens":19}}`,
			Usage{7, 0, 12, 0, 0}, true},
		{"Gemini, its thoughts counted apart (a relay's reasoning_tokens): once", chat,
			`{"choices":[],"model":"gemini-2.5-flash","usage":{"prompt_tokens":7,"completion_tokens":12,"total_tokens":402,"completion_tokens_details":{"reasoning_tokens":383}}}`,
			Usage{7, 0, 395, 383, 0}, true},
		{"Gemini relayed with its thoughts in completion_tokens (OpenRouter)", chat,
			`{"choices":[],"model":"google/gemini-2.5-flash","usage":{"prompt_tokens":11,"completion_tokens":2,"total_tokens":13,"completion_tokens_details":{"reasoning_tokens":0}}}`,
			Usage{11, 0, 2, 0, 0}, true},
		{"Gemini grounded through LiteLLM, no thoughts: the tool-use prompt in the total alone is no output (BerriAI/litellm#33530)", chat,
			`{"choices":[],"model":"gemini-2.0-flash","usage":{"prompt_tokens":100,"completion_tokens":40,"total_tokens":165,"prompt_tokens_details":{"cached_tokens":null,"audio_tokens":null,"text_tokens":100}}}`,
			Usage{100, 0, 40, 0, 0}, true},
		{"Gemini, a total past any count: not trusted, no overflow", chat,
			`{"choices":[],"model":"gemini-2.5-flash","usage":{"prompt_tokens":7,"completion_tokens":12,"total_tokens":9223372036854775807}}`,
			Usage{7, 0, 9223372036854775800, 9223372036854775788, 0}, true},
		{"Gemini, a negative prompt: as written", chat,
			`{"choices":[],"model":"gemini-2.5-flash","usage":{"prompt_tokens":-5,"completion_tokens":12,"total_tokens":402}}`,
			Usage{-5, 0, 12, 0, 0}, true},
		{"completion_tokens left out, a total past any count: not trusted", chat,
			`{"choices":[],"usage":{"prompt_tokens":5,"total_tokens":9223372036854775807}}`, Usage{5, 0, 9223372036854775802, 0, 0}, true},
		{"completion_tokens left out, the cache reads left out of prompt_tokens", chat,
			`{"choices":[],"usage":{"prompt_tokens":100,"total_tokens":1130,"prompt_tokens_details":{"cached_tokens":1024}}}`,
			Usage{1124, 1024, 6, 0, 0}, true},
		{"completion_tokens left out, reasoning_tokens in the total once", chat,
			`{"choices":[],"usage":{"prompt_tokens":5,"total_tokens":12,"completion_tokens_details":{"reasoning_tokens":7}}}`,
			Usage{5, 0, 7, 7, 0}, true},
		{"top-level usage wins over the choice's", chat,
			`{"choices":[{"index":0,"delta":{},"usage":{"prompt_tokens":1,"completion_tokens":1}}],"usage":{"prompt_tokens":5,"completion_tokens":3}}`,
			Usage{5, 0, 3, 0, 0}, true},
		{"llama.cpp timings.cache_n", chat,
			`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":237,"completion_tokens":35},"timings":{"cache_n":236,"prompt_n":1}}`,
			Usage{237, 236, 35, 0, 0}, true},
		{"timings without usage", chat,
			`{"choices":[{"index":0,"delta":{"content":"a"}}],"timings":{"cache_n":236}}`, Usage{}, false},
		{"counts of the wrong type", chat,
			`{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":1,"prompt_cache_hit_tokens":"many"},"timings":{"cache_n":"all"}}`,
			Usage{10, 0, 1, 0, 0}, true},
		{"Anthropic relayed: cache reads left out of prompt_tokens (agentgateway)", chat,
			`{"choices":[],"usage":{"prompt_tokens":3883,"completion_tokens":49,"total_tokens":3932,"prompt_tokens_details":{"cached_tokens":30464,"cache_write_tokens":0},"cache_read_input_tokens":30464,"cache_creation_input_tokens":0}}`,
			Usage{34347, 30464, 49, 0, 0}, true},
		{"Bedrock relayed: cache writes left out too", chat,
			`{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":40,"total_tokens":52,"prompt_tokens_details":{"cached_tokens":2048,"cache_write_tokens":300},"cache_read_input_tokens":2048,"cache_creation_input_tokens":300}}`,
			Usage{2360, 2048, 40, 0, 0}, true},
		{"cache reads inside prompt_tokens, Anthropic's names beside (LiteLLM)", chat,
			`{"choices":[],"usage":{"prompt_tokens":2360,"completion_tokens":40,"prompt_tokens_details":{"cached_tokens":2048},"cache_read_input_tokens":2048,"cache_creation_input_tokens":300}}`,
			Usage{2360, 2048, 40, 0, 0}, true},
		{"OpenAI: reasoning inside completion_tokens", chat,
			`{"choices":[],"usage":{"prompt_tokens":14,"completion_tokens":299,"total_tokens":313,"completion_tokens_details":{"reasoning_tokens":291}}}`,
			Usage{14, 0, 299, 291, 0}, true},
		{"xAI: reasoning outside completion_tokens", chat,
			`{"choices":[],"usage":{"prompt_tokens":14,"completion_tokens":8,"total_tokens":313,"completion_tokens_details":{"reasoning_tokens":291}}}`,
			Usage{14, 0, 299, 291, 0}, true},
		{"DeepInfra: reasoning outside completion_tokens and total_tokens (vercel/ai#12242)", chat,
			`{"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":1124,"total_tokens":1133,"completion_tokens_details":{"reasoning_tokens":1541}}}`,
			Usage{9, 0, 2665, 1541, 0}, true},
		{"DeepInfra: reasoning outside completion_tokens, inside total_tokens (vercel/ai#12214)", chat,
			`{"choices":[],"usage":{"prompt_tokens":19,"completion_tokens":84,"total_tokens":1184,"completion_tokens_details":{"reasoning_tokens":1081}}}`,
			Usage{19, 0, 1165, 1081, 0}, true},
		{"OpenAI Predicted Outputs: rejected tokens inside completion_tokens", chat,
			`{"choices":[],"usage":{"prompt_tokens":120,"completion_tokens":25,"total_tokens":145,"completion_tokens_details":{"accepted_prediction_tokens":2,"rejected_prediction_tokens":20}}}`,
			Usage{120, 0, 25, 0, 20}, true},
		{"rejected tokens more than completion_tokens holds: left out of it", chat,
			`{"choices":[],"usage":{"prompt_tokens":120,"completion_tokens":25,"total_tokens":145,"completion_tokens_details":{"reasoning_tokens":10,"rejected_prediction_tokens":20}}}`,
			Usage{120, 0, 25, 10, 0}, true},
		{"reasoning tokens, no total", chat,
			`{"choices":[],"usage":{"prompt_tokens":14,"completion_tokens":8,"completion_tokens_details":{"reasoning_tokens":5}}}`,
			Usage{14, 0, 8, 5, 0}, true},
		{"completions, DeepSeek FIM", completion,
			`{"choices":[{"index":0,"text":"","finish_reason":"stop"}],"usage":{"prompt_tokens":64,"completion_tokens":9,"prompt_cache_hit_tokens":0,"prompt_cache_miss_tokens":64}}`,
			Usage{64, 0, 9, 0, 0}, true},
		{"completions, llama.cpp timings.cache_n", completion,
			`{"choices":[{"index":0,"text":"","finish_reason":"stop"}],"usage":{"prompt_tokens":40,"completion_tokens":6},"timings":{"cache_n":32}}`,
			Usage{40, 32, 6, 0, 0}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := tc.req.Decode([]byte(tc.data))
			if err != nil {
				t.Fatal(err)
			}
			if ev.Usage != tc.want || ev.HasUsage != tc.ok {
				t.Errorf("usage %+v (reported %v), want %+v (%v)", ev.Usage, ev.HasUsage, tc.want, tc.ok)
			}
		})
	}
}

// TestAccumulatorUsage checks the usage an Accumulator keeps: the last
// trusted one, its cached tokens at most the prompt's, its total filled
// when the server gave none; an untrusted usage, or one without counts,
// leaves it as it was.
func TestAccumulatorUsage(t *testing.T) {
	chat := Chat(openai.ChatCompletionNewParams{}, true)
	var a Accumulator
	for _, tc := range []struct {
		data string
		want openai.CompletionUsage
	}{
		{`{"id":"x","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":5}}`,
			openai.CompletionUsage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15}},
		{`{"id":"x","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":-3,"total_tokens":7}}`,
			openai.CompletionUsage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15}},
		{`{"id":"x","choices":[],"usage":{}}`,
			openai.CompletionUsage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15}},
		{`{"id":"x","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":6,"total_tokens":7},"timings":{"cache_n":236}}`,
			openai.CompletionUsage{PromptTokens: 1, CompletionTokens: 6, TotalTokens: 7, PromptTokensDetails: openai.CompletionUsagePromptTokensDetails{CachedTokens: 1}}},
	} {
		ev, err := chat.Decode([]byte(tc.data))
		if err != nil {
			t.Fatal(err)
		}
		if !a.Add(&ev) {
			t.Fatalf("refused %s", tc.data)
		}
		u := a.Acc.Usage
		if u.PromptTokens != tc.want.PromptTokens || u.CompletionTokens != tc.want.CompletionTokens || u.TotalTokens != tc.want.TotalTokens ||
			u.PromptTokensDetails.CachedTokens != tc.want.PromptTokensDetails.CachedTokens {
			t.Errorf("after %s: usage %d/%d/%d cached %d, want %d/%d/%d cached %d", tc.data, u.PromptTokens, u.CompletionTokens, u.TotalTokens,
				u.PromptTokensDetails.CachedTokens, tc.want.PromptTokens, tc.want.CompletionTokens, tc.want.TotalTokens, tc.want.PromptTokensDetails.CachedTokens)
		}
	}
}

// TestUsageUncountedCompletionBounded: an output read from a total the
// prompt does not bound (a count past any context, a negative prompt)
// is never taken as the server's word.
func TestUsageUncountedCompletionBounded(t *testing.T) {
	for _, raw := range []string{
		`{"prompt_tokens":5,"total_tokens":9223372036854775807}`,
		`{"prompt_tokens":-5,"total_tokens":9223372036854775807}`,
		`{"prompt_tokens":5,"completion_tokens":0,"total_tokens":4294967302}`,
	} {
		u, ok := choiceUsage(raw)
		if ok && u.Trusted() {
			t.Errorf("choiceUsage(%s) = %+v, trusted; want it not trusted", raw, u)
		}
	}
}

// TestAddOutputUncountedCompletion: a continuation's finish chunk whose
// usage writes completion_tokens 0 beside a total one past its prompt
// (Gemini's) counts that 1 and the 3 earlier tokens a Router adds, once:
// 4 in its counts, and its chat view's completion 3 and total 11, which
// an Accumulator rewrites to the prompt's and the 4.
func TestAddOutputUncountedCompletion(t *testing.T) {
	chat := Chat(openai.ChatCompletionNewParams{}, true)
	ev, err := chat.Decode([]byte(`{"id":"g","choices":[{"index":0,"delta":{},"finish_reason":"length"}],"usage":{"prompt_tokens":7,"completion_tokens":0,"total_tokens":8}}`))
	if err != nil {
		t.Fatal(err)
	}
	ev.AddOutput(3)
	if ev.Usage.Output != 4 {
		t.Errorf("Usage.Output = %d, want 4", ev.Usage.Output)
	}
	var a Accumulator
	if !a.Add(&ev) {
		t.Fatal("refused")
	}
	if u := a.Acc.Usage; u.PromptTokens != 7 || u.CompletionTokens != 4 || u.TotalTokens != 11 {
		t.Errorf("accumulated usage %d/%d/%d, want 7/4/11", u.PromptTokens, u.CompletionTokens, u.TotalTokens)
	}
}

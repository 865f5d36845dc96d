package main

import (
	"encoding/json"
	"testing"
	"testing/synctest"
)

// The JSON report's description of the run says what was sent. A
// replayed trace sends each request's traced lengths: its report gave
// bench's defaults, prompt_tokens 256 and max_tokens 128, for the
// Mooncake sample whose prompts average 11,520 tokens. Sessions keep one
// request in flight per conversation: the report gave concurrency 16, the
// flag's unused default, for 2 sessions.
func TestBenchJSONDescribesTheLoadSent(t *testing.T) {
	for _, tc := range []struct {
		name                        string
		args                        []string
		prompt, maxTokens, inFlight int
	}{
		{"trace", []string{"--trace", traceSample("mooncake_conversation_sample.jsonl")}, 0, 0, 0},
		{"sessions", []string{"--sessions", "2", "--turns", "2", "--think", "10ms", "--prompt-tokens", "100", "--max-tokens", "20"}, 100, 20, 2},
		{"closed loop", []string{"--requests", "4", "--concurrency", "3", "--prompt-tokens", "100", "--max-tokens", "20"}, 100, 20, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				code, stdout, stderr := bench(t, t.Context(), append([]string{"--json", "--model", "llama-3.2-1b"}, tc.args...)...)
				if code != 0 {
					t.Fatalf("bench %q exit %d: %s", tc.args, code, stderr)
				}
				var out struct {
					Prompt      int `json:"prompt_tokens"`
					MaxTokens   int `json:"max_tokens"`
					Concurrency int `json:"concurrency"`
				}
				if err := json.Unmarshal([]byte(stdout), &out); err != nil {
					t.Fatal(err)
				}
				if out.Prompt != tc.prompt || out.MaxTokens != tc.maxTokens || out.Concurrency != tc.inFlight {
					t.Errorf("bench %q: prompt_tokens, max_tokens, concurrency = %d, %d, %d; want %d, %d, %d",
						tc.args, out.Prompt, out.MaxTokens, out.Concurrency, tc.prompt, tc.maxTokens, tc.inFlight)
				}
			})
		})
	}
}

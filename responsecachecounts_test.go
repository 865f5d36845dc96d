package tokenpace_test

import (
	"context"
	"io"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/tokenpace/tokenpace"
)

// TestResponseCacheCountsStreamedAndWhole: a Responses usage gives the
// same Timing counts (prompt, cached, output) whether its response is
// streamed or whole, including a usage whose cached tokens, under
// OpenAI's name or Anthropic's, are more than its input_tokens, with the
// tokens written to the cache (cache_creation_input_tokens) in its
// details or beside its counts: Anthropic's counts relayed, which leave
// both out of the input; and the same reasoning tokens
// (output_tokens_details.reasoning_tokens), which a whole response's
// Timing left out.
func TestResponseCacheCountsStreamedAndWhole(t *testing.T) {
	for _, tc := range []struct {
		name, usage                       string
		prompt, cached, output, reasoning int
	}{
		{"cached within the input", `{"input_tokens":1000,"input_tokens_details":{"cached_tokens":800},"output_tokens":50,"total_tokens":1050}`, 1000, 800, 50, 0},
		{"cached within the input, with reasoning", `{"input_tokens":1000,"input_tokens_details":{"cached_tokens":800},"output_tokens":50,"output_tokens_details":{"reasoning_tokens":30},"total_tokens":1050}`, 1000, 800, 50, 30},
		{"more reasoning than output, bounded by it", `{"input_tokens":1000,"output_tokens":50,"output_tokens_details":{"reasoning_tokens":70},"total_tokens":1050}`, 1000, 0, 50, 50},
		{"read under Anthropic's name, within the input", `{"input_tokens":1000,"input_tokens_details":{"cache_creation_input_tokens":150,"cache_read_input_tokens":800},"output_tokens":50,"total_tokens":1050}`, 1000, 800, 50, 0},
		{"read under Anthropic's name, left out, written in the details", `{"input_tokens":200,"input_tokens_details":{"cache_creation_input_tokens":150,"cache_read_input_tokens":800},"output_tokens":50,"total_tokens":250}`, 1150, 800, 50, 0},
		{"cached left out, written beside the counts", `{"input_tokens":200,"input_tokens_details":{"cached_tokens":800},"cache_creation_input_tokens":100,"output_tokens":50,"total_tokens":250}`, 1100, 800, 50, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			check := func(how string, tm *tokenpace.Timing) {
				t.Helper()
				if tm == nil {
					t.Fatalf("%s: no Timing", how)
				}
				if tm.PromptTokens != tc.prompt || tm.CachedTokens != tc.cached || tm.OutputTokens != tc.output || tm.ReasoningTokens != tc.reasoning {
					t.Errorf("%s: Timing counts (%d prompt, %d cached, %d output, %d reasoning), want (%d, %d, %d, %d)",
						how, tm.PromptTokens, tm.CachedTokens, tm.OutputTokens, tm.ReasoningTokens, tc.prompt, tc.cached, tc.output, tc.reasoning)
				}
			}
			synctest.Test(t, func(t *testing.T) {
				var b eventsSSE
				writeAnswer(&b, "resp_1", "", "msg_1", nil, []string{"Latency", " budgets"}, tc.usage, 10)
				url, hc := serve(t, replay(b.rec()))
				s := tokenpace.NewClient(openaiClient(url, hc)).NewResponseStreaming(context.Background(), respond("m", 100))
				readEvents(s)
				if err := s.Err(); err != nil {
					t.Fatalf("streamed: %v", err)
				}
				check("streamed", s.Timing())
			})
			synctest.Test(t, func(t *testing.T) {
				body := `{"id":"resp_1","object":"response","created_at":1791200000,"status":"completed","model":"m","error":null,` +
					`"output":[{"id":"msg_1","type":"message","role":"assistant","status":"completed","content":[{"type":"output_text","text":"Latency budgets","annotations":[]}]}],` +
					`"usage":` + tc.usage + `}`
				url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "application/json")
					_, _ = io.WriteString(w, body)
				}))
				var tm *tokenpace.Timing
				if _, err := tokenpace.NewClient(openaiClient(url, hc)).NewResponse(context.Background(),
					respond("m", 100), tokenpace.WithTimingInto(&tm)); err != nil {
					t.Fatalf("whole: %v", err)
				}
				check("whole", tm)
			})
		})
	}
}

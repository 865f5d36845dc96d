package tokenpace_test

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tokenpace/tokenpace"
)

// TestTPOTLeavesOutRejectedPrediction: with Predicted Outputs, OpenAI
// counts the predicted tokens it rejected
// (completion_tokens_details.rejected_prediction_tokens) in
// completion_tokens, but never streams them. TPOT divided the decode
// time by them too: 5 chunks 10 ms apart, 25 output tokens of which 20
// rejected, came out at 1.67 ms (TPS 600). It now leaves them out (10 ms,
// TPS 100), through a Client and a Router alike, and OutputTokens stays
// the server's count, which metrics report as gen_ai.usage.output_tokens.
func TestTPOTLeavesOutRejectedPrediction(t *testing.T) {
	content := func(s string) string { return fmt.Sprintf(`{"content":%q}`, s) }
	deltas := []string{content("a"), content("b"), content("c"), content("d"), content("e")}
	for _, tc := range []struct {
		name   string
		usage  string
		tokens int
		tpot   time.Duration
	}{
		{"rejected prediction", `{"prompt_tokens":10,"completion_tokens":25,"total_tokens":35,"completion_tokens_details":{"accepted_prediction_tokens":2,"rejected_prediction_tokens":20}}`,
			25, 10 * time.Millisecond},
		{"rejected prediction and hidden reasoning", `{"prompt_tokens":10,"completion_tokens":35,"total_tokens":45,"completion_tokens_details":{"reasoning_tokens":10,"rejected_prediction_tokens":20}}`,
			35, 10 * time.Millisecond},
		{"prediction all accepted", `{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15,"completion_tokens_details":{"accepted_prediction_tokens":4,"rejected_prediction_tokens":0}}`,
			5, 10 * time.Millisecond},
		// More rejected tokens than completion_tokens can hold: a server
		// whose count leaves them out.
		{"rejected more than the output", `{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15,"completion_tokens_details":{"rejected_prediction_tokens":20}}`,
			5, 10 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				url, hc := serve(t, replay(chatRecording(deltas, tc.usage)))
				c := tokenpace.NewClient(openaiClient(url, hc))
				check := func(who string, tm *tokenpace.Timing) {
					t.Helper()
					tps := float64(time.Second) / float64(tc.tpot)
					if tm.OutputTokens != tc.tokens || tm.TPOT() != tc.tpot || tm.TPS() != tps {
						t.Errorf("%s: output tokens %d, TPOT %v, TPS %v; want %d, %v, %v", who, tm.OutputTokens, tm.TPOT(), tm.TPS(), tc.tokens, tc.tpot, tps)
					}
				}
				s := c.NewStreaming(context.Background(), chat("m", 100))
				readAll(t, s)
				check("Client", s.Timing())
				r, err := tokenpace.NewRouter(c, tokenpace.Policy{}, route("m"))
				if err != nil {
					t.Fatal(err)
				}
				rs := r.NewStreaming(context.Background(), chat("m", 100))
				readAll(t, rs)
				check("Router", rs.Timing())
			})
		})
	}
}

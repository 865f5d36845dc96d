package metrics_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/metrics"
	"github.com/tokenpace/tokenpace/simulate"
)

// TestRecorderWholeCalls: a non-streaming call shows its caller no token
// before the whole answer, 100 ms + 11 × 20 ms after it was sent, whether
// a Client or a Router made it: the Recorder counts its E2E, and no TTFT,
// ITL, TPOT or milestone, and the call is good under an SLO whose TTFT
// objective is shorter than the whole answer's wait (there is no first
// token to hold to it) and whose E2E objective it meets, through either.
func TestRecorderWholeCalls(t *testing.T) {
	slo := metrics.SLO{TTFT: 200 * time.Millisecond, E2E: time.Second}
	const n = 12
	params := openai.ChatCompletionNewParams{
		Model:     "m",
		Messages:  []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Tell me about latency.")},
		MaxTokens: openai.Int(n),
	}
	for _, via := range []string{"client", "router"} {
		t.Run(via, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rec := metrics.NewRecorder(metrics.WithSLO(slo))
				c, _ := simClient(t, rec.Hooks(), simulate.WithModel("m", &simulate.Fixed{TTFT: 100 * time.Millisecond, ITL: 20 * time.Millisecond}))
				var tm *tokenpace.Timing
				var err error
				if via == "client" {
					_, err = c.New(context.Background(), params, tokenpace.WithTimingInto(&tm))
				} else {
					r, rerr := tokenpace.NewRouter(c, tokenpace.Policy{}, tokenpace.Route{Name: "m"})
					if rerr != nil {
						t.Fatal(rerr)
					}
					_, err = r.New(context.Background(), params, tokenpace.WithTimingInto(&tm))
				}
				if err != nil || tm.OutputTokens != n {
					t.Fatalf("New: %v, %d output tokens; want nil, %d", err, tm.OutputTokens, n)
				}
				s := rec.Snapshot()
				if got, want := tm.E2E(), 100*time.Millisecond+(n-1)*20*time.Millisecond; got != want {
					t.Errorf("E2E() = %v, want %v", got, want)
				}
				if s.E2E.Count != 1 {
					t.Errorf("E2E: %d samples, want 1", s.E2E.Count)
				}
				if s.TTFT.Count != 0 || s.ITL.Count != 0 || s.TPOT.Count != 0 {
					t.Errorf("TTFT %d, ITL %d, TPOT %d samples (TPOT max %v); want none: no token showed before the end",
						s.TTFT.Count, s.ITL.Count, s.TPOT.Count, s.TPOT.Max)
				}
				if s.OutputTokens != n {
					t.Errorf("OutputTokens = %d, want %d", s.OutputTokens, n)
				}
				if tm.TTFT() != 0 || !slo.Met(tm) || !slo.Good(tm) || s.Good != 1 {
					t.Errorf("TTFT() = %v, SLO met %v, good %v, %d good in the Recorder; want 0, true, true, 1",
						tm.TTFT(), slo.Met(tm), slo.Good(tm), s.Good)
				}
				if len(tm.Milestones) != 0 || len(s.Milestones) != 0 {
					t.Errorf("milestones %v, %d in the Recorder; want none: no text showed before the end", tm.Milestones, len(s.Milestones))
				}
			})
		})
	}
}

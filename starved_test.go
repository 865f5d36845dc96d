package tokenpace

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/sony/gobreaker/v2"

	"github.com/tokenpace/tokenpace/simulate"
)

// TestWatchdogLate: a watchdog that runs well after its deadline marks
// its breach as measured while the client was starved.
func TestWatchdogLate(t *testing.T) {
	tests := []struct {
		after    time.Duration // when the watchdog gets to run, from the send
		wantLate time.Duration
	}{
		{100 * time.Millisecond, 0},
		{100*time.Millisecond + starvedAfter, 0},
		{400 * time.Millisecond, 300 * time.Millisecond},
	}
	for _, tt := range tests {
		start := time.Now()
		var got BudgetError
		w := newWatchdog(Budget{TTFT: 100 * time.Millisecond}, start, start, func(b BudgetError) { got = b })
		w.stopTimer()
		w.fireAt(start.Add(tt.after))
		if got.Phase != PhaseTTFT || got.Late != tt.wantLate || got.Observed != tt.after {
			t.Errorf("breach when run at +%v = %+v, want phase ttft, observed %v, late %v", tt.after, got, tt.after, tt.wantLate)
		}
	}
}

// TestStarvedBreachSparesBreaker: a breach measured while the client was
// starved does not count against the route's breaker; one measured on
// time does.
func TestStarvedBreachSparesBreaker(t *testing.T) {
	for _, tt := range []struct {
		late      time.Duration
		wantState gobreaker.State
	}{
		{0, gobreaker.StateOpen},
		{time.Second, gobreaker.StateClosed},
	} {
		t.Run(tt.late.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ts := simulate.StartInMemory(t,
					simulate.WithModel("big", &simulate.Fixed{TTFT: 10 * time.Second}),
					simulate.WithModel("small", &simulate.Fixed{TTFT: 50 * time.Millisecond}))
				oc := openai.NewClient(option.WithBaseURL(ts.URL), option.WithHTTPClient(ts.Client),
					option.WithAPIKey("sk-test-secret"), option.WithMaxRetries(0))
				r, err := NewRouter(NewClient(oc), Policy{Breaker: BreakerSettings{Failures: 1}},
					Route{Target: Target{Name: "big", Model: "big"}}, Route{Target: Target{Name: "small", Model: "small"}})
				if err != nil {
					t.Fatal(err)
				}
				s := r.NewStreaming(context.Background(), openai.ChatCompletionNewParams{
					Model:    "big",
					Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
				})
				time.Sleep(200 * time.Millisecond)
				c := s.src.(*call)
				c.mu.Lock()
				tr := c.tries[0]
				c.mu.Unlock()
				// The watchdog of a starved client fires late.
				c.onBreach(tr, BudgetError{Phase: PhaseTTFT, Limit: 100 * time.Millisecond, Observed: 200 * time.Millisecond, Late: tt.late})
				for s.Next() {
				}
				if err := s.Err(); err != nil {
					t.Fatalf("Err() = %v, want nil (fell back)", err)
				}
				s.Close()
				if got := s.Timing().Breaches; len(got) != 1 || got[0].Late != tt.late {
					t.Errorf("Breaches = %+v, want one with Late %v", got, tt.late)
				}
				if st, _ := r.BreakerState("big"); st != tt.wantState {
					t.Errorf("BreakerState(big) = %v, want %v", st, tt.wantState)
				}
			})
		})
	}
}

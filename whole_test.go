package tokenpace_test

import (
	"context"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// A non-streaming Router call under each policy: the response the caller
// gets, the attempts' outcomes and when the call ended. The big model's
// first token would come at 100 ms, its whole response at 400 ms: a TTFT
// budget of 300 ms bounds the whole response, so it is missed.
func TestRouterNew(t *testing.T) {
	tests := []struct {
		name     string
		pol      tokenpace.Policy
		bigOpts  []option.RequestOption
		want     string
		outcomes []tokenpace.Outcome
		e2e      time.Duration
	}{
		{name: "plain", want: "B1 B2 B3 B4", outcomes: []tokenpace.Outcome{tokenpace.OutcomeWon}, e2e: 400 * msec},
		{name: "TTFT budget bounds the whole response", pol: tokenpace.Policy{Budget: tokenpace.Budget{TTFT: 300 * msec}},
			want: "S1 S2 S3 S4", outcomes: []tokenpace.Outcome{tokenpace.OutcomeBreached, tokenpace.OutcomeWon}, e2e: 380 * msec},
		{name: "hedge", pol: tokenpace.Policy{Hedge: tokenpace.Hedge{After: 100 * msec}},
			want: "S1 S2 S3 S4", outcomes: []tokenpace.Outcome{tokenpace.OutcomeHedgeLost, tokenpace.OutcomeWon}, e2e: 180 * msec},
		{name: "fallback on a server error", bigOpts: []option.RequestOption{withFault("503")},
			want: "S1 S2 S3 S4", outcomes: []tokenpace.Outcome{tokenpace.OutcomeFailed, tokenpace.OutcomeWon}, e2e: 80 * msec},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				big := route("big")
				big.Options = tt.bigOpts
				r := router(t, tt.pol, []simulate.Option{
					simulate.WithModel("big", &simulate.Fixed{TTFT: 100 * msec, ITL: 100 * msec}),
					simulate.WithModel("small", &simulate.Fixed{TTFT: 50 * msec, ITL: 10 * msec}),
					replyByModel(4),
				}, big, route("small"))
				res, tm, err := r.NewTimed(context.Background(), chat("big", 10))
				if err != nil {
					t.Fatalf("NewTimed() error = %v", err)
				}
				if got := res.Choices[0].Message.Content; got != tt.want {
					t.Errorf("content = %q, want %q", got, tt.want)
				}
				if got := outcomes(tm); !slices.Equal(got, tt.outcomes) {
					t.Errorf("outcomes = %v, want %v", got, tt.outcomes)
				}
				if tm.Stream || tm.E2E() != tt.e2e || tm.UserTTFT() != tt.e2e || tm.OutputTokens != 4 || !tm.UsageReported {
					t.Errorf("Stream %v, E2E %v, UserTTFT %v, output tokens %d (reported %v); want false, %v, %v, 4 (true)",
						tm.Stream, tm.E2E(), tm.UserTTFT(), tm.OutputTokens, tm.UsageReported, tt.e2e, tt.e2e)
				}
			})
		})
	}
}

// A non-streaming call that no route answers in time fails with the last
// route's breach; Continue changes nothing, since the caller had no
// output.
func TestRouterNewBudgetMissed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := router(t, tokenpace.Policy{Budget: tokenpace.Budget{TTFT: 300 * msec}, Continue: true}, []simulate.Option{
			simulate.WithModel("big", &simulate.Fixed{TTFT: 100 * msec, ITL: 100 * msec}), replyWords(4),
		}, route("big"))
		res, tm, err := r.NewTimed(context.Background(), chat("big", 10))
		if res != nil {
			t.Errorf("response = %v, want nil", res)
		}
		checkBudgetError(t, err, tokenpace.BudgetError{Target: "big", Phase: tokenpace.PhaseTTFT, Limit: 300 * msec, Observed: 300 * msec})
		if got, want := kinds(tm), []tokenpace.AttemptKind{tokenpace.AttemptFirst}; !slices.Equal(got, want) {
			t.Errorf("kinds = %v, want %v", got, want)
		}
	})
}

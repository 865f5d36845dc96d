package tokenpace_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// TestFailFast checks each phase of the watchdog on one route with
// FailFast: the stream ends with the exact *BudgetError at the exact
// virtual time, and keeps the output that arrived before the breach.
func TestFailFast(t *testing.T) {
	stall := option.WithHeader(simulate.FaultHeader, "stall;for=5s;after=20")
	tests := []struct {
		name    string
		sched   *simulate.Fixed
		budget  tokenpace.Budget
		opts    []option.RequestOption
		want    tokenpace.BudgetError
		tokens  int           // output tokens the caller received
		elapsed time.Duration // from the call to the end of the stream
	}{
		{
			name:   "ttft",
			sched:  &simulate.Fixed{TTFT: 2 * time.Second, ITL: 20 * time.Millisecond},
			budget: tokenpace.Budget{TTFT: 180 * time.Millisecond},
			want:   tokenpace.BudgetError{Target: "m", Phase: tokenpace.PhaseTTFT, Limit: 180 * time.Millisecond, Observed: 180 * time.Millisecond},
			tokens: 0, elapsed: 180 * time.Millisecond,
		},
		{
			name:   "gap after 20 tokens",
			sched:  &simulate.Fixed{TTFT: 100 * time.Millisecond, ITL: 20 * time.Millisecond},
			budget: tokenpace.Budget{TTFT: time.Second, Gap: 200 * time.Millisecond},
			opts:   []option.RequestOption{stall},
			want:   tokenpace.BudgetError{Target: "m", Phase: tokenpace.PhaseGap, Limit: 200 * time.Millisecond, Observed: 200 * time.Millisecond},
			tokens: 20, elapsed: 100*time.Millisecond + 19*20*time.Millisecond + 200*time.Millisecond,
		},
		{
			name:   "e2e",
			sched:  &simulate.Fixed{TTFT: 200 * time.Millisecond, ITL: 20 * time.Millisecond},
			budget: tokenpace.Budget{E2E: 510 * time.Millisecond},
			want:   tokenpace.BudgetError{Target: "m", Phase: tokenpace.PhaseE2E, Limit: 510 * time.Millisecond, Observed: 510 * time.Millisecond},
			tokens: 16, elapsed: 510 * time.Millisecond,
		},
		{
			name:   "min tps after warm-up",
			sched:  &simulate.Fixed{TTFT: 50 * time.Millisecond, ITL: 100 * time.Millisecond},
			budget: tokenpace.Budget{MinTPS: 20, Warmup: 8},
			want:   tokenpace.BudgetError{Target: "m", Phase: tokenpace.PhaseTPS, Limit: 50 * time.Millisecond, Observed: 100 * time.Millisecond},
			tokens: 8, elapsed: 50*time.Millisecond + 7*100*time.Millisecond,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var rec record
				sopts := []simulate.Option{simulate.WithModel("m", tc.sched), replyWords(40)}
				c := simClient(t, sopts, tokenpace.WithHooks(rec.hooks()))
				r, err := tokenpace.NewRouter(c, tokenpace.Policy{Budget: tc.budget, FailFast: true}, route("m"))
				if err != nil {
					t.Fatalf("NewRouter() error = %v", err)
				}
				start := time.Now()
				s := r.NewStreaming(context.Background(), chat("m", 40), tc.opts...)
				text := readAll(t, s)
				if got := time.Since(start); got != tc.elapsed {
					t.Errorf("stream ended after %v, want %v", got, tc.elapsed)
				}
				checkBudgetError(t, s.Err(), tc.want)
				if want := words(1, tc.tokens); tc.tokens > 0 && text != want {
					t.Errorf("content = %q, want %q", text, want)
				}
				if got := s.Accumulated().Choices; tc.tokens > 0 && (len(got) == 0 || got[0].Message.Content != text) {
					t.Errorf("Accumulated() lost the partial output %q", text)
				}
				tm := s.Timing()
				if got := len(tm.Chunks); got != tc.tokens {
					t.Errorf("len(Timing.Chunks) = %d, want %d", got, tc.tokens)
				}
				if want := []tokenpace.BudgetError{{Target: "m", Phase: tc.want.Phase, Limit: tc.want.Limit, Observed: tc.want.Observed}}; !slices.Equal(tm.Breaches, want) {
					t.Errorf("Timing.Breaches = %+v, want %+v", tm.Breaches, want)
				}
				if got, want := outcomes(tm), []tokenpace.Outcome{tokenpace.OutcomeBreached}; !slices.Equal(got, want) {
					t.Errorf("outcomes = %v, want %v", got, want)
				}
				if tm.OK() {
					t.Errorf("Timing.OK() = true, want false after a breach")
				}
				if len(rec.done) != 1 || rec.done[0] != tm {
					t.Errorf("Done called %d times, want once with the final Timing", len(rec.done))
				}
			})
		})
	}
}

// TestBudgetErrorMessage checks the error text and its unwrapping.
func TestBudgetErrorMessage(t *testing.T) {
	err := error(&tokenpace.BudgetError{Target: "big", Phase: tokenpace.PhaseTTFT, Limit: 180 * time.Millisecond, Observed: 200 * time.Millisecond})
	if got, want := err.Error(), "tokenpace: ttft budget exceeded on target big: 200ms observed, limit 180ms"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(err, tokenpace.ErrBudgetExceeded) {
		t.Errorf("errors.Is(err, ErrBudgetExceeded) = false, want true")
	}
}

// TestNewRouterErrors checks that bad configuration gets an error, not a
// panic.
func TestNewRouterErrors(t *testing.T) {
	c := tokenpace.NewClient(openai.NewClient(option.WithAPIKey("x")))
	tests := []struct {
		name   string
		c      *tokenpace.Client
		p      tokenpace.Policy
		routes []tokenpace.Route
	}{
		{"no client", nil, tokenpace.Policy{}, []tokenpace.Route{route("a")}},
		{"no routes", c, tokenpace.Policy{}, nil},
		{"duplicate", c, tokenpace.Policy{}, []tokenpace.Route{route("a"), route("a")}},
		{"negative ttft", c, tokenpace.Policy{Budget: tokenpace.Budget{TTFT: -1}}, []tokenpace.Route{route("a")}},
		{"negative route gap", c, tokenpace.Policy{}, []tokenpace.Route{{Name: "a", Budget: tokenpace.Budget{Gap: -1}}}},
		{"negative rps", c, tokenpace.Policy{}, []tokenpace.Route{{Name: "a", Limit: tokenpace.Limit{RPS: -1}}}},
		{"hedge percentile", c, tokenpace.Policy{Hedge: tokenpace.Hedge{Percentile: 1.5}}, []tokenpace.Route{route("a")}},
	}
	for _, tc := range tests {
		if _, err := tokenpace.NewRouter(tc.c, tc.p, tc.routes...); err == nil || !strings.HasPrefix(err.Error(), "tokenpace: ") {
			t.Errorf("NewRouter(%s) error = %v, want a tokenpace error", tc.name, err)
		}
	}
}

// TestE2EPerCall: Budget.E2E bounds the whole call, not each attempt:
// the primary breaches its TTFT budget at 100 ms, the fallback streams
// slowly, and the call ends at 300 ms after its first request, not 300 ms
// after the fallback's.
func TestE2EPerCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		big := route("big")
		big.Budget = tokenpace.Budget{TTFT: 100 * msec}
		r := router(t, tokenpace.Policy{Budget: tokenpace.Budget{E2E: 300 * msec}}, []simulate.Option{
			simulate.WithModel("big", &simulate.Fixed{TTFT: 2 * time.Second}),
			simulate.WithModel("small", &simulate.Fixed{TTFT: 50 * msec, ITL: 50 * msec}),
			replyByModel(10),
		}, big, route("small"))
		s := r.NewStreaming(context.Background(), chat("big", 10))
		readAll(t, s)
		checkBudgetError(t, s.Err(), tokenpace.BudgetError{Target: "small", Phase: tokenpace.PhaseE2E, Limit: 300 * msec, Observed: 300 * msec})
		tm := s.Timing()
		if got, want := tm.End.Sub(tm.Start), 300*msec; got != want {
			t.Errorf("End - Start = %v, want %v", got, want)
		}
	})
}

// TestMinTPSCountsTokens: MinTPS is in tokens per second. A server that
// streams usage with every chunk, four tokens a chunk every 10 ms
// (400 tokens/s), meets a 200 tokens/s floor; without that usage each chunk
// counts one token (100/s) and breaches it.
func TestMinTPSCountsTokens(t *testing.T) {
	for _, tt := range []struct {
		name      string
		usage     bool
		wantBreak bool
	}{
		{"usage per chunk", true, false},
		{"no usage", false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var events []string
				for i := 1; i <= 20; i++ {
					e := `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"abcd"}}]`
					if tt.usage {
						e += fmt.Sprintf(`,"usage":{"prompt_tokens":5,"completion_tokens":%d,"total_tokens":%d}`, 4*i, 5+4*i)
					}
					events = append(events, e+"}\n\n")
				}
				events = append(events, chunk("c1", "", "stop", ""), "data: [DONE]\n\n")
				url, hc := serve(t, script("text/event-stream", events...))
				r, err := tokenpace.NewRouter(tokenpace.NewClient(openaiClient(url, hc)),
					tokenpace.Policy{Budget: tokenpace.Budget{MinTPS: 200}}, route("m"))
				if err != nil {
					t.Fatal(err)
				}
				s := r.NewStreaming(context.Background(), chat("m", 80))
				readAll(t, s)
				err = s.Err()
				if tt.wantBreak {
					var be *tokenpace.BudgetError
					if !errors.As(err, &be) || be.Phase != tokenpace.PhaseTPS {
						t.Errorf("Err() = %v, want a tps *BudgetError", err)
					}
				} else if err != nil {
					t.Errorf("Err() = %v, want nil", err)
				}
			})
		})
	}
}

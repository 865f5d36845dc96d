package tokenpace_test

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// TestHedgeAtLearntPercentile: the first 20 calls teach the Router the
// primary's TTFTs (100..119 ms, p95 118 ms); the 21st, slow, is hedged at
// exactly that p95 rather than at the fixed one-second fallback delay.
func TestHedgeAtLearntPercentile(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var n atomic.Int64
		big := &simulate.Fixed{ITL: msec, PerRequest: func(simulate.Request) (time.Duration, time.Duration) {
			i := n.Add(1) - 1
			if i >= 20 {
				return 2 * time.Second, 0
			}
			return 100*msec + time.Duration(i)*msec, 0
		}}
		r := router(t, tokenpace.Policy{Hedge: tokenpace.Hedge{After: time.Second, Percentile: 0.95}}, []simulate.Option{
			simulate.WithModel("big", big),
			simulate.WithModel("small", &simulate.Fixed{TTFT: 50 * msec, ITL: msec}),
		}, route("big"), route("small"))
		for i := range 21 {
			s := r.NewStreaming(context.Background(), chat("big", 2))
			readAll(t, s)
			tm := s.Timing()
			if i < 20 {
				if len(tm.Attempts) != 1 {
					t.Fatalf("call %d: %d attempts, want 1 (no hedge)", i, len(tm.Attempts))
				}
				continue
			}
			if p95, _ := tokenpace.TTFTPercentile(r, "big", 0.95); p95 != 118*msec {
				t.Errorf("TTFTPercentile(big, 0.95) = %v, want 118ms", p95)
			}
			if got, want := outcomes(tm), []tokenpace.Outcome{tokenpace.OutcomeHedgeLost, tokenpace.OutcomeWon}; !slices.Equal(got, want) {
				t.Fatalf("slow call: outcomes = %v, want %v", got, want)
			}
			if got := tm.Attempts[1].Start.Sub(tm.Start); got != 118*msec {
				t.Errorf("hedge started at +%v, want +118ms", got)
			}
			if got := tm.UserTTFT(); got != 168*msec {
				t.Errorf("UserTTFT() = %v, want 168ms", got)
			}
		}
	})
}

// TestAllRoutesOpen: with every breaker open the call ends at once with a
// KindSkipped *StreamError.
func TestAllRoutesOpen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		big := route("big")
		big.Options = []option.RequestOption{option.WithHeader(simulate.FaultHeader, "503")}
		r := router(t, tokenpace.Policy{Breaker: tokenpace.BreakerSettings{Failures: 1}}, []simulate.Option{
			simulate.WithModel("big", &simulate.Fixed{TTFT: 100 * msec}),
		}, big)
		s := r.NewStreaming(context.Background(), chat("big", 2))
		readAll(t, s)
		checkKind(t, s.Err(), tokenpace.KindRequest)
		start := time.Now()
		s = r.NewStreaming(context.Background(), chat("big", 2))
		readAll(t, s)
		var se *tokenpace.StreamError
		if err := s.Err(); !errors.As(err, &se) || se.Kind != tokenpace.KindSkipped || !errors.Is(err, tokenpace.ErrCircuitOpen) {
			t.Fatalf("Err() = %v, want a KindSkipped *StreamError wrapping ErrCircuitOpen", err)
		}
		if got := time.Since(start); got != 0 {
			t.Errorf("the skip took %v, want no time", got)
		}
		if got, want := outcomes(s.Timing()), []tokenpace.Outcome{tokenpace.OutcomeSkipped}; !slices.Equal(got, want) {
			t.Errorf("outcomes = %v, want %v", got, want)
		}
	})
}

// TestCallPolicy: a call's budget overrides the Policy's field by field,
// and an invalid one ends the call with an error instead of a panic.
func TestCallPolicy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := router(t, tokenpace.Policy{Budget: tokenpace.Budget{TTFT: time.Second}}, []simulate.Option{
			simulate.WithModel("big", &simulate.Fixed{TTFT: 500 * msec}),
		}, route("big"))
		ctx := tokenpace.ContextWithCallPolicy(context.Background(), tokenpace.CallPolicy{Budget: tokenpace.Budget{TTFT: 100 * msec}, FailFast: true})
		s := r.NewStreaming(ctx, chat("big", 2))
		readAll(t, s)
		checkBudgetError(t, s.Err(), tokenpace.BudgetError{Target: "big", Phase: tokenpace.PhaseTTFT, Limit: 100 * msec, Observed: 100 * msec})

		ctx = tokenpace.ContextWithCallPolicy(context.Background(), tokenpace.CallPolicy{Budget: tokenpace.Budget{Gap: -time.Second}})
		s = r.NewStreaming(ctx, chat("big", 2))
		readAll(t, s)
		if err := s.Err(); err == nil || errors.Is(err, tokenpace.ErrBudgetExceeded) {
			t.Errorf("invalid call budget: Err() = %v, want a configuration error", err)
		}

		s = r.NewStreaming(context.Background(), chat("big", 2))
		readAll(t, s)
		if err := s.Err(); err != nil {
			t.Errorf("Policy budget only: Err() = %v, want nil", err)
		}
	})
}

// TestRouterHooks: the Client's hooks see one call: FirstToken once, from
// the winner, with the caller's TTFT (from the call's first request), and
// Done once.
func TestRouterHooks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var firsts []tokenpace.FirstTokenInfo
		var rec record
		h := rec.hooks()
		h.FirstToken = func(_ context.Context, fi tokenpace.FirstTokenInfo) { firsts = append(firsts, fi) }
		c := simClient(t, []simulate.Option{
			simulate.WithModel("big", &simulate.Fixed{TTFT: 2 * time.Second}),
			simulate.WithModel("small", &simulate.Fixed{TTFT: 100 * msec}),
		}, tokenpace.WithHooks(h))
		r, err := tokenpace.NewRouter(c, tokenpace.Policy{Budget: tokenpace.Budget{TTFT: 180 * msec}}, route("big"), route("small"))
		if err != nil {
			t.Fatal(err)
		}
		s := r.NewStreaming(context.Background(), chat("big", 3))
		readAll(t, s)
		if len(firsts) != 1 || firsts[0].Target != "small" || firsts[0].TTFT != 280*msec {
			t.Errorf("FirstToken calls = %+v, want one for small with TTFT 280ms", firsts)
		}
		if len(rec.done) != 1 || rec.done[0] != s.Timing() {
			t.Errorf("Done called %d times, want once with the final Timing", len(rec.done))
		}
	})
}

// TestContinuationAfterReset: a stream that breaks mid-way (connection
// reset after 5 tokens) continues on the next route; when that route fails
// before its first token, the one after it continues instead.
func TestContinuationAfterReset(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		big := route("big")
		big.Options = []option.RequestOption{option.WithHeader(simulate.FaultHeader, "reset;after=5")}
		broken := route("broken")
		broken.Options = []option.RequestOption{option.WithHeader(simulate.FaultHeader, "500")}
		r := router(t, tokenpace.Policy{Continue: true}, []simulate.Option{
			simulate.WithModel("big", &simulate.Fixed{TTFT: 100 * msec, ITL: 10 * msec}),
			simulate.WithModel("broken", &simulate.Fixed{TTFT: 10 * msec}),
			simulate.WithModel("small", &simulate.Fixed{TTFT: 50 * msec, ITL: 10 * msec}),
			simulate.WithReply(func(ri simulate.ReplyInfo) (string, bool) {
				if ri.Model == "big" {
					return words(1, 12), true
				}
				return words(6, 12), true
			}),
		}, big, broken, route("small"))
		s := r.NewStreaming(context.Background(), chat("big", 12))
		if text, want := readAll(t, s), words(1, 12); text != want {
			t.Errorf("content = %q, want %q", text, want)
		}
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v, want nil", err)
		}
		tm := s.Timing()
		want := []tokenpace.Outcome{tokenpace.OutcomeFailed, tokenpace.OutcomeFailed, tokenpace.OutcomeWon}
		if got := outcomes(tm); !slices.Equal(got, want) {
			t.Errorf("outcomes = %v, want %v", got, want)
		}
		if got, want := kinds(tm), []tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptContinuation, tokenpace.AttemptContinuation}; !slices.Equal(got, want) {
			t.Errorf("kinds = %v, want %v", got, want)
		}
		if got := []int{tm.Attempts[0].Tokens, tm.Attempts[1].Tokens, tm.Attempts[2].Tokens}; !slices.Equal(got, []int{5, 0, 7}) {
			t.Errorf("attempt tokens = %v, want [5 0 7]", got)
		}
		if tm.OutputTokens != 12 || len(tm.Chunks) != 12 {
			t.Errorf("OutputTokens, len(Chunks) = %d, %d, want 12, 12", tm.OutputTokens, len(tm.Chunks))
		}
	})
}

// TestCanceledBeforeCall: a call made with a context already cancelled
// ends at once with the context's error and sends nothing.
func TestCanceledBeforeCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := router(t, tokenpace.Policy{}, []simulate.Option{simulate.WithModel("big", &simulate.Fixed{})}, route("big"))
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		s := r.NewStreaming(ctx, chat("big", 2))
		readAll(t, s)
		if err := s.Err(); err != context.Canceled {
			t.Errorf("Err() = %v, want context.Canceled", err)
		}
		if n := len(s.Timing().Attempts); n != 0 {
			t.Errorf("%d attempts, want 0", n)
		}
	})
}

// TestHedgeMax: with Max 2 a second hedge starts after another delay when
// the first hedge has no token either; the first token wins over both.
func TestHedgeMax(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := router(t, tokenpace.Policy{Hedge: tokenpace.Hedge{After: 50 * msec, Max: 2}}, []simulate.Option{
			simulate.WithModel("big", &simulate.Fixed{TTFT: 2 * time.Second}),
			simulate.WithModel("mid", &simulate.Fixed{TTFT: 2 * time.Second}),
			simulate.WithModel("small", &simulate.Fixed{TTFT: 30 * msec}),
		}, route("big"), route("mid"), route("small"))
		s := r.NewStreaming(context.Background(), chat("big", 3))
		readAll(t, s)
		tm := s.Timing()
		want := []tokenpace.Outcome{tokenpace.OutcomeHedgeLost, tokenpace.OutcomeHedgeLost, tokenpace.OutcomeWon}
		if got := outcomes(tm); !slices.Equal(got, want) {
			t.Fatalf("outcomes = %v, want %v", got, want)
		}
		if got, want := kinds(tm), []tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptHedge, tokenpace.AttemptHedge}; !slices.Equal(got, want) {
			t.Errorf("kinds = %v, want %v", got, want)
		}
		if got := tm.Attempts[2].Start.Sub(tm.Start); got != 100*msec {
			t.Errorf("second hedge started at +%v, want +100ms", got)
		}
		if got := tm.UserTTFT(); got != 130*msec {
			t.Errorf("UserTTFT() = %v, want 130ms", got)
		}
	})
}

// TestContinuationOnSlowDecode: the primary decodes at 10 tokens/s, under
// the 20 tokens/s floor; after the 4-token warm-up the call continues on
// the small model.
func TestContinuationOnSlowDecode(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := router(t, tokenpace.Policy{Budget: tokenpace.Budget{MinTPS: 20, Warmup: 4}, Continue: true}, []simulate.Option{
			simulate.WithModel("big", &simulate.Fixed{TTFT: 50 * msec, ITL: 100 * msec}),
			simulate.WithModel("small", &simulate.Fixed{TTFT: 50 * msec, ITL: 10 * msec}),
			simulate.WithReply(func(ri simulate.ReplyInfo) (string, bool) {
				if ri.Model == "big" {
					return words(1, 10), true
				}
				return words(5, 10), true
			}),
		}, route("big"), route("small"))
		s := r.NewStreaming(context.Background(), chat("big", 10))
		if text, want := readAll(t, s), words(1, 10); text != want {
			t.Errorf("content = %q, want %q", text, want)
		}
		tm := s.Timing()
		want := []tokenpace.BudgetError{{Target: "big", Phase: tokenpace.PhaseTPS, Limit: 50 * msec, Observed: 100 * msec}}
		if !slices.Equal(tm.Breaches, want) {
			t.Errorf("Breaches = %+v, want %+v", tm.Breaches, want)
		}
		if got := []int{tm.Attempts[0].Tokens, tm.Attempts[1].Tokens}; !slices.Equal(got, []int{4, 6}) {
			t.Errorf("attempt tokens = %v, want [4 6]", got)
		}
	})
}

// TestFailFastWithHedge: the first route breaches its TTFT budget while
// the hedge runs, and the hedge then fails before its first token: the
// call ends with the breach, as FailFast says, and no third route is
// tried.
func TestFailFastWithHedge(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		big := route("big")
		big.Budget = tokenpace.Budget{TTFT: 40 * time.Millisecond}
		small := route("small")
		small.Options = []option.RequestOption{withFault("reset;after=0")}
		r := router(t, tokenpace.Policy{FailFast: true, Hedge: tokenpace.Hedge{After: 20 * time.Millisecond}},
			[]simulate.Option{
				simulate.WithModel("big", &simulate.Fixed{TTFT: time.Second, ITL: 10 * time.Millisecond}),
				simulate.WithModel("small", &simulate.Fixed{TTFT: 100 * time.Millisecond, ITL: 10 * time.Millisecond}),
				simulate.WithModel("tiny", &simulate.Fixed{TTFT: 50 * time.Millisecond, ITL: 10 * time.Millisecond}),
				replyWords(4),
			}, big, small, route("tiny"))
		start := time.Now()
		s := r.NewStreaming(context.Background(), chat("big", 4))
		text := readAll(t, s)
		waited := time.Since(start)
		tm := s.Timing()
		var be *tokenpace.BudgetError
		if !errors.As(s.Err(), &be) || be.Target != "big" || text != "" {
			t.Errorf("text %q, Err() = %v; want no text and the *BudgetError of big", text, s.Err())
		}
		if got := kinds(tm); !slices.Equal(got, []tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptHedge}) {
			t.Errorf("attempts %v %v, want first and hedge only", got, outcomes(tm))
		}
		if waited != 120*time.Millisecond {
			t.Errorf("the caller waited %v, want 120ms: the hedge started at 20ms, reset when its first token was due", waited)
		}
	})
}

// TestHedgeAfterFallback: the first route fails 10 ms in and the call
// falls back; the hedge waits Hedge.After for the fallback's first token,
// counted from the fallback's start (10 + 20 ms), not from the call's.
func TestHedgeAfterFallback(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		big := route("big")
		big.Options = []option.RequestOption{withFault("reset;after=0")}
		r := router(t, tokenpace.Policy{Hedge: tokenpace.Hedge{After: 20 * time.Millisecond}},
			[]simulate.Option{
				simulate.WithModel("big", &simulate.Fixed{TTFT: 10 * time.Millisecond, ITL: 10 * time.Millisecond}),
				simulate.WithModel("mid", &simulate.Fixed{TTFT: 100 * time.Millisecond, ITL: 10 * time.Millisecond}),
				simulate.WithModel("small", &simulate.Fixed{TTFT: 15 * time.Millisecond, ITL: 10 * time.Millisecond}),
				replyWords(4),
			}, big, route("mid"), route("small"))
		start := time.Now()
		s := r.NewStreaming(context.Background(), chat("big", 4))
		var first time.Duration
		for s.Next() {
			if first == 0 && s.Current().Choices[0].Delta.Content != "" {
				first = time.Since(start)
			}
		}
		s.Close()
		tm := s.Timing()
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v", err)
		}
		want := []tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptFallback, tokenpace.AttemptHedge}
		if got := kinds(tm); !slices.Equal(got, want) || first != 45*time.Millisecond {
			t.Errorf("attempts %v %v, first token after %v; want %v and 45ms (hedge at 10+20ms, its TTFT 15ms)", got, outcomes(tm), first, want)
		}
	})
}

// TestFailFastHedgeAnswers: the first route breaches its TTFT budget
// while the hedge runs, and the hedge then answers whole: the caller has
// the hedge's answer, and the call ends without an error.
func TestFailFastHedgeAnswers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		big := route("big")
		big.Budget = tokenpace.Budget{TTFT: 40 * time.Millisecond}
		r := router(t, tokenpace.Policy{FailFast: true, Hedge: tokenpace.Hedge{After: 20 * time.Millisecond}},
			[]simulate.Option{
				simulate.WithModel("big", &simulate.Fixed{TTFT: time.Second, ITL: 10 * time.Millisecond}),
				simulate.WithModel("small", &simulate.Fixed{TTFT: 100 * time.Millisecond, ITL: 10 * time.Millisecond}),
				replyWords(4),
			}, big, route("small"))
		s := r.NewStreaming(context.Background(), chat("big", 4))
		text := readAll(t, s)
		tm := s.Timing()
		if want := words(1, 4); text != want || s.Err() != nil {
			t.Errorf("text %q, Err() = %v; want %q, nil", text, s.Err(), want)
		}
		if got := kinds(tm); !slices.Equal(got, []tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptHedge}) {
			t.Errorf("attempts %v %v, want first and hedge", got, outcomes(tm))
		}
	})
}

package tokenpace_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/sony/gobreaker/v2"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// ledger is a Breaker and a Limiter of the caller's that keeps count:
// the requests its breaker allowed and the outcomes it was told, and the
// reservations its limiter made (each waiting delay) and gave back.
type ledger struct {
	delay time.Duration

	mu       sync.Mutex
	allowed  int
	outcomes []error
	reserved int
	refunds  int
}

func (l *ledger) Allow() (func(error), error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.allowed++
	return func(err error) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.outcomes = append(l.outcomes, err)
	}, nil
}

func (l *ledger) State() gobreaker.State { return gobreaker.StateClosed }

func (l *ledger) Reserve(time.Time, int) (time.Duration, func(time.Time), error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reserved++
	return l.delay, func(time.Time) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.refunds++
	}, nil
}

// uncounted reports whether every outcome l was told is one a Router's
// own breaker leaves out of its counts.
func (l *ledger) uncounted() bool {
	excluded := tokenpace.BreakerSettings{}.Gobreaker("").IsExcluded
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, err := range l.outcomes {
		if !excluded(err) {
			return false
		}
	}
	return true
}

// counts returns what l counted.
func (l *ledger) counts() (allowed int, outcomes []error, reserved, refunds int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.allowed, slices.Clone(l.outcomes), l.reserved, l.refunds
}

// TestEndWhileWaitingInAdmission: a try that waits for its route's
// limiter ends there when the caller closes the stream, its context is
// cancelled or a newer request under its Latest key supersedes it. That
// crashed the process (a nil attempt read at the try's
// end). Now the call ends with what ended it, the breaker that allowed
// the try is told once, with an error it does not count (the Router's
// own stays closed and answers the next call at once), and the limiter
// gets its reservation back.
func TestEndWhileWaitingInAdmission(t *testing.T) {
	for _, tc := range []struct {
		name        string
		end         func(s *tokenpace.Stream[openai.ChatCompletionChunk], cancel context.CancelFunc, l *tokenpace.Latest)
		wantErr     error
		wantOutcome tokenpace.Outcome
	}{
		{"close", func(s *tokenpace.Stream[openai.ChatCompletionChunk], _ context.CancelFunc, _ *tokenpace.Latest) {
			s.Close()
		},
			nil, tokenpace.OutcomeCanceled},
		{"cancel", func(_ *tokenpace.Stream[openai.ChatCompletionChunk], cancel context.CancelFunc, _ *tokenpace.Latest) {
			cancel()
		},
			context.Canceled, tokenpace.OutcomeCanceled},
		{"superseded", func(_ *tokenpace.Stream[openai.ChatCompletionChunk], _ context.CancelFunc, l *tokenpace.Latest) {
			_, done := l.Begin(context.Background(), "key")
			done()
		}, tokenpace.ErrSuperseded, tokenpace.OutcomeSuperseded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				l := &ledger{delay: time.Second}
				shared := route("shared")
				shared.Breaker, shared.Limiter = l, l
				own := route("own")
				own.Limit = tokenpace.Limit{RPS: 1}
				sim := func(name string) []simulate.Option {
					return []simulate.Option{simulate.WithModel(name, &simulate.Fixed{TTFT: 100 * msec, ITL: 10 * msec})}
				}
				rs := router(t, tokenpace.Policy{}, sim("shared"), shared)
				ro := router(t, tokenpace.Policy{}, sim("own"), own)
				t0 := time.Now()
				callOK(t, ro, chat("own", 3)) // the own limiter's one token
				for _, r := range []*tokenpace.Router{rs, ro} {
					var latest tokenpace.Latest
					ctx, cancel := context.WithCancel(context.Background())
					ctx, done := latest.Begin(ctx, "key")
					s := r.NewStreaming(ctx, chat("m", 3))
					time.Sleep(100 * msec) // it waits in admission
					tc.end(s, cancel, &latest)
					for s.Next() {
					}
					s.Close()
					done()
					cancel()
					if err := s.Err(); !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
						t.Errorf("Err() = %v, want %v", err, tc.wantErr)
					}
					if got, want := outcomes(s.Timing()), []tokenpace.Outcome{tc.wantOutcome}; !slices.Equal(got, want) {
						t.Errorf("outcomes = %v, want %v", got, want)
					}
				}
				allowed, told, reserved, refunds := l.counts()
				if allowed != 1 || len(told) != 1 || reserved != 1 || refunds != 1 {
					t.Errorf("caller's breaker and limiter: %d allowed, told %v, %d reserved, %d refunded; want 1, one outcome, 1, 1",
						allowed, told, reserved, refunds)
				}
				if st, _ := ro.BreakerState("own"); st != gobreaker.StateClosed {
					t.Errorf("BreakerState(own) = %v, want closed", st)
				}
				// The own limiter's next token comes at 1 s: with the
				// ended call's reservation refunded, the next call waits
				// until then, not until 2 s.
				want := time.Until(t0.Add(time.Second))
				if q := callOK(t, ro, chat("own", 3)).Queue(); q != want {
					t.Errorf("next call: Queue() = %v, want %v (the reservation refunded)", q, want)
				}
			})
		})
	}
}

// TestHedgeLostWhileWaitingInAdmission: a hedge sent to a route whose
// limiter makes it wait is beaten by the first try's first token while it
// waits. That crashed the process. Now the first try's answer is the
// caller's, the hedge is recorded as lost, and the hedge route's breaker
// and limiter are told once and refunded.
func TestHedgeLostWhileWaitingInAdmission(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := &ledger{delay: time.Second}
		small := route("small")
		small.Breaker, small.Limiter = l, l
		r := router(t, tokenpace.Policy{Hedge: tokenpace.Hedge{After: 100 * msec}}, []simulate.Option{
			simulate.WithModel("big", &simulate.Fixed{TTFT: 300 * msec, ITL: 10 * msec}),
			simulate.WithModel("small", &simulate.Fixed{TTFT: 100 * msec, ITL: 10 * msec}),
		}, route("big"), small)
		tm := callOK(t, r, chat("m", 3))
		if got, want := outcomes(tm), []tokenpace.Outcome{tokenpace.OutcomeWon, tokenpace.OutcomeHedgeLost}; tm.Target != "big" || !slices.Equal(got, want) {
			t.Errorf("target %q, outcomes %v; want big, %v", tm.Target, got, want)
		}
		allowed, told, reserved, refunds := l.counts()
		if allowed != 1 || len(told) != 1 || reserved != 1 || refunds != 1 {
			t.Errorf("hedge route's breaker and limiter: %d allowed, told %v, %d reserved, %d refunded; want 1, one outcome, 1, 1",
				allowed, told, reserved, refunds)
		}
		if !l.uncounted() {
			t.Errorf("hedge route's breaker told %v, want an outcome a breaker does not count", told)
		}
	})
}

package tokenpace_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sony/gobreaker/v2"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// extBreaker is a tokenpace.Breaker that is open or closed as told and
// keeps the outcomes it is given.
type extBreaker struct {
	mu       sync.Mutex
	open     bool
	outcomes []error
}

func (b *extBreaker) Allow() (func(error), error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.open {
		return nil, gobreaker.ErrOpenState
	}
	return func(err error) {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.outcomes = append(b.outcomes, err)
	}, nil
}

func (b *extBreaker) State() gobreaker.State {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.open {
		return gobreaker.StateOpen
	}
	return gobreaker.StateClosed
}

// extLimiter is a tokenpace.Limiter with a fixed delay or error that
// counts its reservations and cancellations.
type extLimiter struct {
	mu                  sync.Mutex
	delay               time.Duration
	err                 error
	reserved, cancelled int
	tokens              int
}

func (l *extLimiter) Reserve(_ time.Time, tokens int) (time.Duration, func(time.Time), error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return 0, nil, l.err
	}
	l.reserved++
	l.tokens = tokens
	return l.delay, func(time.Time) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.cancelled++
	}, nil
}

func TestRouteExternalBreakerAndLimiter(t *testing.T) {
	tests := []struct {
		name          string
		br            *extBreaker
		lim           *extLimiter
		wantAttempts  string
		wantErr       error // of the first attempt
		wantOutcomes  int   // recorded by br
		wantCancelled int   // by lim
		wantQueue     time.Duration
	}{
		{name: "open breaker", br: &extBreaker{open: true}, wantAttempts: "a:skipped b:won", wantErr: tokenpace.ErrCircuitOpen},
		{name: "closed breaker", br: &extBreaker{}, wantAttempts: "a:won", wantOutcomes: 1},
		{name: "limiter refuses", lim: &extLimiter{err: errors.New("too large")}, wantAttempts: "a:skipped b:won", wantErr: tokenpace.ErrAdmission},
		{name: "limiter wait over the budget", lim: &extLimiter{delay: 2 * time.Second}, wantAttempts: "a:skipped b:won", wantErr: tokenpace.ErrAdmission, wantCancelled: 1},
		{name: "limiter wait within the budget", lim: &extLimiter{delay: 500 * time.Millisecond}, wantAttempts: "a:won", wantQueue: 500 * time.Millisecond},
		{name: "both, breaker not told of a request never sent", br: &extBreaker{}, lim: &extLimiter{delay: 2 * time.Second}, wantAttempts: "a:skipped b:won", wantErr: tokenpace.ErrAdmission, wantCancelled: 1, wantOutcomes: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := route("a")
				if tt.br != nil {
					a.Breaker = tt.br
				}
				if tt.lim != nil {
					a.Limiter = tt.lim
				}
				// The Policy's breaker would open at the first failure;
				// a route with its own Breaker does not use it.
				pol := tokenpace.Policy{Budget: tokenpace.Budget{TTFT: time.Second}, Breaker: tokenpace.BreakerSettings{Failures: 1}}
				r := router(t, pol, []simulate.Option{
					simulate.WithModel("a", &simulate.Fixed{TTFT: 100 * time.Millisecond}),
					simulate.WithModel("b", &simulate.Fixed{TTFT: 100 * time.Millisecond}),
				}, a, route("b"))
				s := r.NewStreaming(context.Background(), chat("a", 8))
				drain(t, s, 0)
				if err := s.Err(); err != nil {
					t.Fatalf("Err() = %v, want nil", err)
				}
				tm := s.Timing()
				var got string
				for i, at := range tm.Attempts {
					if i > 0 {
						got += " "
					}
					got += at.Target + ":" + string(at.Outcome)
				}
				if got != tt.wantAttempts {
					t.Fatalf("attempts = %s, want %s", got, tt.wantAttempts)
				}
				if tt.wantErr != nil && !errors.Is(tm.Attempts[0].Err, tt.wantErr) {
					t.Errorf("first attempt's Err = %v, want %v", tm.Attempts[0].Err, tt.wantErr)
				}
				if tt.br != nil && len(tt.br.outcomes) != tt.wantOutcomes {
					t.Errorf("outcomes given to the breaker = %v, want %d", tt.br.outcomes, tt.wantOutcomes)
				}
				if tt.br != nil && len(tt.br.outcomes) == 1 && tt.br.outcomes[0] != nil && !ignored(tt.br.outcomes[0]) {
					t.Errorf("outcome given to the breaker = %v, want nil or one the breaker ignores", tt.br.outcomes[0])
				}
				if tt.lim != nil && tt.lim.cancelled != tt.wantCancelled {
					t.Errorf("cancellations = %d, want %d", tt.lim.cancelled, tt.wantCancelled)
				}
				if tt.lim != nil && tt.lim.reserved > 0 && tt.lim.tokens <= 8 {
					t.Errorf("tokens reserved = %d, want the prompt's estimate plus max_tokens 8", tt.lim.tokens)
				}
				if tt.wantQueue > 0 && tm.Queue() != tt.wantQueue {
					t.Errorf("Queue() = %v, want %v", tm.Queue(), tt.wantQueue)
				}
				if s, ok := r.BreakerState("a"); tt.br != nil && (!ok || s != tt.br.State()) {
					t.Errorf("BreakerState(a) = %v, %v, want %v, true", s, ok, tt.br.State())
				}
			})
		})
	}
}

// ignored reports whether a Router's breaker leaves err out of its counts.
func ignored(err error) bool { return tokenpace.BreakerSettings{}.Gobreaker("").IsExcluded(err) }

package tokenpace_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sony/gobreaker/v2"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// panickingBreaker is a Breaker of the caller's that panics where says.
type panickingBreaker struct{ where string }

func (b panickingBreaker) Allow() (func(error), error) {
	if b.where == "allow" {
		panic("the caller's breaker broke")
	}
	return func(error) {
		if b.where == "done" {
			panic("the caller's breaker broke in done")
		}
	}, nil
}

func (b panickingBreaker) State() gobreaker.State {
	if b.where == "state" {
		panic("the caller's breaker broke in State")
	}
	return gobreaker.StateClosed
}

// panickingLimiter is a Limiter of the caller's that panics in Reserve,
// in the cancel it gives, or in Settle.
type panickingLimiter struct{ inCancel, inSettle bool }

func (l panickingLimiter) Reserve(time.Time, int) (time.Duration, func(time.Time), error) {
	if !l.inCancel && !l.inSettle {
		panic("the caller's limiter broke")
	}
	return 0, func(time.Time) { panic("the caller's limiter broke in cancel") }, nil
}

func (l panickingLimiter) Settle(time.Time, int, int) {
	if l.inSettle {
		panic("the caller's limiter broke in Settle")
	}
}

// TestCallersBreakerAndLimiterPanic: a Router asks a route's Breaker and
// Limiter of the caller's with its own lock held, on goroutines the
// caller cannot guard (a hedge's timer among them). A panic there left
// the lock held: the call hung, with every goroutine of it, or the
// program crashed. A panic in Allow or Reserve now skips the route, its
// attempt's error KindPanic naming the breaker or the limiter, and the
// next route answers; one in done, State or a reservation's cancel is
// dropped, as is one in a Limiter's Settle.
func TestCallersBreakerAndLimiterPanic(t *testing.T) {
	for _, tc := range []struct {
		name    string
		route   tokenpace.Route
		skipped string // the first route's attempt: skipped for this panic; "" when it answers
	}{
		{"Allow", tokenpace.Route{Breaker: panickingBreaker{"allow"}}, "breaker"},
		{"done", tokenpace.Route{Breaker: panickingBreaker{"done"}}, ""},
		{"State", tokenpace.Route{Breaker: panickingBreaker{"state"}}, ""},
		{"Reserve", tokenpace.Route{Limiter: panickingLimiter{}}, "limiter"},
		{"cancel", tokenpace.Route{Limiter: panickingLimiter{inCancel: true}}, ""},
		{"Settle", tokenpace.Route{Limiter: panickingLimiter{inSettle: true}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				tp := simClient(t, []simulate.Option{simulate.WithModel("m", &simulate.Fixed{TTFT: 50 * time.Millisecond, ITL: 10 * time.Millisecond})})
				first := tc.route
				first.Name, first.Model = "first", "m"
				r, err := tokenpace.NewRouter(tp, tokenpace.Policy{Hedge: tokenpace.Hedge{After: 20 * time.Millisecond}},
					first, tokenpace.Route{Name: "second", Model: "m"})
				if err != nil {
					t.Fatal(err)
				}
				s := r.NewStreaming(context.Background(), chat("m", 8))
				text := readAll(t, s)
				_ = s.Close()
				if text == "" || s.Err() != nil {
					t.Fatalf("text %q, Err() = %v; want an answer", text, s.Err())
				}
				a := s.Timing().Attempts[0]
				var se *tokenpace.StreamError
				switch {
				case tc.skipped != "" && (a.Target != "first" || a.Outcome != tokenpace.OutcomeSkipped || !errors.As(a.Err, &se) || se.Kind != tokenpace.KindPanic || se.Detail != tc.skipped):
					t.Errorf("first attempt %s %s, err %v; want skipped with a KindPanic %q error", a.Target, a.Outcome, a.Err, tc.skipped)
				case tc.skipped == "" && a.Target == "first" && a.Outcome == tokenpace.OutcomeSkipped:
					t.Errorf("first attempt skipped (%v); want it tried", a.Err)
				}
				if st, ok := r.BreakerState("first"); tc.route.Breaker != nil && (!ok || st != gobreaker.StateClosed) {
					t.Errorf("BreakerState(first) = %v, %v; want closed", st, ok)
				}
			})
		})
	}
}

// TestBreakerSettingsCallbacksPanic: gobreaker runs BreakerSettings'
// ReadyToTrip and OnStateChange, the caller's, under its lock on a call's
// goroutines: a panic in ReadyToTrip counts as false, one in
// OnStateChange is dropped, and the breaker works on.
func TestBreakerSettingsCallbacksPanic(t *testing.T) {
	st := tokenpace.BreakerSettings{
		ReadyToTrip:   func(gobreaker.Counts) bool { panic("the caller's ReadyToTrip broke") },
		OnStateChange: func(string, string, string) { panic("the caller's OnStateChange broke") },
	}.Gobreaker("first")
	if st.ReadyToTrip(gobreaker.Counts{ConsecutiveFailures: 9}) {
		t.Error("a panicking ReadyToTrip opened the breaker")
	}
	st.ReadyToTrip = func(gobreaker.Counts) bool { return true }
	b := gobreaker.NewTwoStepCircuitBreaker[struct{}](st)
	done, err := b.Allow()
	if err != nil {
		t.Fatal(err)
	}
	done(errors.New("failed")) // opens it: OnStateChange panics
	if b.State() != gobreaker.StateOpen {
		t.Errorf("state %v after a failure that trips it, want open", b.State())
	}
}

package tokenpace_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3/option"
	"github.com/sony/gobreaker/v2"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// blockingBreaker is a Breaker of the caller's that blocks in where
// ("allow", "state" or "done") until release is closed, and counts the
// outcomes it is told.
type blockingBreaker struct {
	where   string
	release chan struct{}
	told    *atomic.Int32
}

func (b blockingBreaker) Allow() (func(error), error) {
	if b.where == "allow" {
		<-b.release
	}
	return func(error) {
		if b.where == "done" {
			<-b.release
		}
		b.told.Add(1)
	}, nil
}

func (b blockingBreaker) State() gobreaker.State {
	if b.where == "state" {
		<-b.release
	}
	return gobreaker.StateClosed
}

// blockingLimiter is a Limiter of the caller's that blocks in where
// ("reserve" or "settle") until release is closed, and counts the
// reservations given back.
type blockingLimiter struct {
	where    string
	release  chan struct{}
	canceled *atomic.Int32
}

func (l blockingLimiter) Reserve(time.Time, int) (time.Duration, func(time.Time), error) {
	if l.where == "reserve" {
		<-l.release
	}
	return 0, func(time.Time) { l.canceled.Add(1) }, nil
}

func (l blockingLimiter) Settle(time.Time, int, int) {
	if l.where == "settle" {
		<-l.release
	}
}

// TestCloseWhileCallersAdmissionHoldsUp: a Router runs a route's Breaker
// and Limiter of the caller's, and validators, with its lock held. One
// that blocks (a breaker asking a remote store without a timeout) held
// the lock, and with it Close, Next and Timing, for as long as it
// blocked: for ever in this test. Close now returns at once, a Next
// waiting meanwhile returns, the caller sees the end, and what that code
// gives back once it returns is undone: the admission is told unsent,
// the reservation cancelled.
func TestCloseWhileCallersAdmissionHoldsUp(t *testing.T) {
	for _, tc := range []struct {
		name     string
		fallback bool // the first route fails with 500: the held-up route is the fallback, and the caller waits in Next
		breaker  string
		limiter  string
		validate bool
		onChange bool  // the Router's own breaker, tripped by the first route's failure, runs an OnStateChange that blocks
		err      error // the call's end as Timing says it
	}{
		{name: "Allow of a fallback", fallback: true, breaker: "allow", err: tokenpace.ErrStreamClosed},
		{name: "State of a fallback under Ramp", fallback: true, breaker: "state", err: tokenpace.ErrStreamClosed},
		{name: "Reserve of a fallback", fallback: true, limiter: "reserve", err: tokenpace.ErrStreamClosed},
		{name: "done at the end", breaker: "done"},
		{name: "Settle at the end", limiter: "settle"},
		{name: "Validator at the end", validate: true, err: tokenpace.ErrStreamClosed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				release := make(chan struct{})
				var told, canceled, dones atomic.Int32
				held := tokenpace.Route{Name: "held", Model: "m"}
				if tc.breaker != "" {
					held.Breaker = blockingBreaker{where: tc.breaker, release: release, told: &told}
				}
				if tc.limiter != "" {
					held.Limiter = blockingLimiter{where: tc.limiter, release: release, canceled: &canceled}
				}
				p := tokenpace.Policy{}
				if tc.breaker == "state" {
					p.Breaker.Ramp = time.Minute
				}
				if tc.validate {
					p.Validator = func(string) error { <-release; return nil }
				}
				routes := []tokenpace.Route{held}
				if tc.fallback {
					failing := route("failing")
					failing.Model = "m"
					failing.Options = []option.RequestOption{withFault("500")}
					routes = []tokenpace.Route{failing, held}
					if tc.breaker == "state" {
						routes = append(routes, tokenpace.Route{Name: "last", Model: "m"}) // the last route takes a call whatever Ramp says
					}
				}
				sopts := []simulate.Option{simulate.WithModel("m", &simulate.Fixed{TTFT: 50 * time.Millisecond, ITL: 10 * time.Millisecond}),
					replyWords(4), simulate.WithRTT(20 * time.Millisecond)}
				c := simClient(t, sopts, tokenpace.WithHooks(tokenpace.Hooks{Done: func(context.Context, *tokenpace.Timing) { dones.Add(1) }}))
				r, err := tokenpace.NewRouter(c, p, routes...)
				if err != nil {
					t.Fatal(err)
				}
				s := r.NewStreaming(context.Background(), chat("m", 4))
				next := make(chan bool, 1)
				if tc.fallback {
					// The caller waits in Next before the fallback is
					// admitted. (Under the call's lock, a Next that came
					// later would wait on a mutex, which virtual time
					// does not see as blocked.)
					go func() { next <- s.Next() }()
					synctest.Wait()
				}
				time.Sleep(time.Second)
				synctest.Wait()
				closed := time.Now()
				_ = s.Close()
				if waited := time.Since(closed); waited != 0 {
					t.Errorf("Close waited %v, want no wait", waited)
				}
				if tc.fallback && <-next {
					t.Error("Next() waiting at Close = true, want false")
				}
				if s.Next() {
					t.Error("Next() after Close = true, want false")
				}
				if tm := s.Timing(); !errors.Is(tm.Err, tc.err) || (tc.err == nil && tm.Err != nil) {
					t.Errorf("Timing().Err = %v, want %v", tm.Err, tc.err)
				}
				if n := dones.Load(); n != 1 {
					t.Errorf("Done called %d times by Close's return, want 1", n)
				}
				close(release)
				synctest.Wait()
				if tc.breaker == "allow" && told.Load() != 1 {
					t.Errorf("the admission the breaker gave after Close was told %d times, want once (unsent)", told.Load())
				}
				if tc.limiter == "reserve" && canceled.Load() != 1 {
					t.Errorf("the reservation the limiter made after Close was cancelled %d times, want once", canceled.Load())
				}
				if n := dones.Load(); n != 1 {
					t.Errorf("Done called %d times after the caller's code returned, want 1", n)
				}
			})
		})
	}
}

// TestNewStreamingHonoursContextWhileBreakerHoldsUp: a Route's Breaker
// of the caller's that blocks in Allow kept Router.NewStreaming from
// returning past its context's deadline (a Breaker takes no context).
// It now returns at the deadline, the error the context's, and the
// admission the breaker gives later is told unsent.
func TestNewStreamingHonoursContextWhileBreakerHoldsUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		var told atomic.Int32
		c := simClient(t, []simulate.Option{simulate.WithModel("m", &simulate.Fixed{TTFT: 50 * time.Millisecond, ITL: 10 * time.Millisecond})})
		r, err := tokenpace.NewRouter(c, tokenpace.Policy{},
			tokenpace.Route{Name: "held", Model: "m", Breaker: blockingBreaker{where: "allow", release: release, told: &told}})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		start := time.Now()
		s := r.NewStreaming(ctx, chat("m", 4))
		if waited := time.Since(start); waited != time.Second {
			t.Errorf("NewStreaming returned after %v, want at the context's deadline, 1s", waited)
		}
		if s.Next() || !errors.Is(s.Err(), context.DeadlineExceeded) {
			t.Errorf("Next() true or Err() = %v; want false and the context's deadline", s.Err())
		}
		_ = s.Close()
		close(release)
		synctest.Wait()
		if told.Load() != 1 {
			t.Errorf("the admission given after the deadline was told %d times, want once (unsent)", told.Load())
		}
	})
}

// TestBreakerCallbacksBounded: the Router's own breakers run
// BreakerSettings' ReadyToTrip and OnStateChange, the caller's, with the
// breaker's lock and the call's held. One that blocked held the call, and
// its Close, for as long as it did: for ever in this test. The call now
// goes on after 100 ms (a ReadyToTrip that has not answered is false):
// the first route's 500 trips the breaker, the call falls back, and the
// caller gets the answer 100 ms later than without the callback.
func TestBreakerCallbacksBounded(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(s *tokenpace.BreakerSettings, release chan struct{})
	}{
		{"OnStateChange", func(s *tokenpace.BreakerSettings, release chan struct{}) {
			s.OnStateChange = func(string, string, string) { <-release }
		}},
		{"ReadyToTrip", func(s *tokenpace.BreakerSettings, release chan struct{}) {
			s.ReadyToTrip = func(gobreaker.Counts) bool { <-release; return true }
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				release := make(chan struct{})
				// The 500 comes 10 ms after the request: the caller waits in
				// Next by then. (At the same instant, its Next could ask
				// for the call's lock while the callback held it; in the
				// bubble, a goroutine blocked on a mutex stops the clock,
				// and the 100 ms would never pass.)
				sopts := []simulate.Option{simulate.WithModel("m", &simulate.Fixed{TTFT: 50 * time.Millisecond, ITL: 10 * time.Millisecond}),
					replyWords(4), simulate.WithRTT(10 * time.Millisecond)}
				c := simClient(t, sopts)
				failing := tokenpace.Route{Name: "failing", Model: "m", Options: []option.RequestOption{withFault("500")}}
				call := func(s tokenpace.BreakerSettings) (*tokenpace.Timing, string) {
					t.Helper()
					r, err := tokenpace.NewRouter(c, tokenpace.Policy{Breaker: s}, failing, tokenpace.Route{Name: "ok", Model: "m"})
					if err != nil {
						t.Fatal(err)
					}
					st := r.NewStreaming(context.Background(), chat("m", 4))
					text := readAll(t, st)
					_ = st.Close()
					return st.Timing(), text
				}
				plain, _ := call(tokenpace.BreakerSettings{Failures: 1})
				s := tokenpace.BreakerSettings{Failures: 1}
				tc.set(&s, release)
				held, text := call(s)
				if held.Err != nil || text != words(1, 4) {
					t.Errorf("Err %v, text %q; want the fallback's answer %q", held.Err, text, words(1, 4))
				}
				if got, want := held.E2E(), plain.E2E()+100*time.Millisecond; got != want {
					t.Errorf("E2E %v with the callback held up, want %v: without it %v, and 100 ms", got, want, plain.E2E())
				}
				close(release)
				synctest.Wait()
			})
		})
	}
}

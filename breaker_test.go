package tokenpace_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sony/gobreaker/v2"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// transitions records breaker state changes.
type transitions struct {
	mu  sync.Mutex
	got []string
}

func (tr *transitions) record(target, from, to string) {
	tr.mu.Lock()
	tr.got = append(tr.got, target+":"+from+"->"+to)
	tr.mu.Unlock()
}

func (tr *transitions) list() []string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return append([]string(nil), tr.got...)
}

// TestBreakerTripsAndRecovers: three TTFT breaches in a row open the
// primary's breaker; the next call skips it at once (no waiting) and is
// answered by the fallback; after the breaker's timeout a half-open probe
// to the recovered primary succeeds and closes it.
func TestBreakerTripsAndRecovers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var slow atomic.Bool
		slow.Store(true)
		big := &simulate.Fixed{TTFT: 50 * msec, ITL: 10 * msec, PerRequest: func(simulate.Request) (time.Duration, time.Duration) {
			if slow.Load() {
				return 2 * time.Second, 0
			}
			return 0, 0
		}}
		var tr transitions
		r := router(t, tokenpace.Policy{
			Budget:  tokenpace.Budget{TTFT: 180 * msec},
			Breaker: tokenpace.BreakerSettings{Failures: 3, Timeout: 10 * time.Second, OnStateChange: tr.record},
		}, []simulate.Option{
			simulate.WithModel("big", big),
			simulate.WithModel("small", &simulate.Fixed{TTFT: 100 * msec, ITL: 10 * msec}),
		}, route("big"), route("small"))

		call := func() *tokenpace.Timing { return callOK(t, r, chat("big", 3)) }
		breached := []tokenpace.Outcome{tokenpace.OutcomeBreached, tokenpace.OutcomeWon}
		for i := range 3 {
			if got := outcomes(call()); !slices.Equal(got, breached) {
				t.Fatalf("call %d: outcomes = %v, want %v", i, got, breached)
			}
		}
		if st, _ := r.BreakerState("big"); st != gobreaker.StateOpen {
			t.Fatalf("BreakerState(big) = %v, want open", st)
		}
		tm := call()
		if got, want := outcomes(tm), []tokenpace.Outcome{tokenpace.OutcomeSkipped, tokenpace.OutcomeWon}; !slices.Equal(got, want) {
			t.Fatalf("open breaker: outcomes = %v, want %v", got, want)
		}
		if got, want := kinds(tm), []tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptFallback}; !slices.Equal(got, want) {
			t.Errorf("kinds = %v, want %v", got, want)
		}
		if got := tm.UserTTFT(); got != 100*msec {
			t.Errorf("open breaker: UserTTFT() = %v, want 100ms (the skip costs no time)", got)
		}
		var se *tokenpace.StreamError
		if err := tm.Attempts[0].Err; !errors.As(err, &se) || se.Kind != tokenpace.KindSkipped || !errors.Is(err, tokenpace.ErrCircuitOpen) || se.Target != "big" {
			t.Errorf("skipped attempt Err = %v, want a KindSkipped *StreamError for big wrapping ErrCircuitOpen", err)
		}

		slow.Store(false)
		time.Sleep(10 * time.Second)
		tm = call()
		if got, want := outcomes(tm), []tokenpace.Outcome{tokenpace.OutcomeWon}; !slices.Equal(got, want) {
			t.Fatalf("half-open probe: outcomes = %v, want %v", got, want)
		}
		if st, _ := r.BreakerState("big"); st != gobreaker.StateClosed {
			t.Errorf("BreakerState(big) = %v, want closed", st)
		}
		want := []string{"big:closed->open", "big:open->half-open", "big:half-open->closed"}
		if got := tr.list(); !slices.Equal(got, want) {
			t.Errorf("transitions = %v, want %v", got, want)
		}
	})
}

// TestBreakerExcludesCallerErrors: cancellations by the caller and 4xx
// caused by the request do not count against a target.
func TestBreakerExcludesCallerErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := router(t, tokenpace.Policy{Breaker: tokenpace.BreakerSettings{Failures: 1}}, []simulate.Option{
			simulate.WithModel("big", &simulate.Fixed{TTFT: time.Second}),
		}, route("big"))
		for range 3 {
			ctx, cancel := context.WithTimeout(context.Background(), 100*msec)
			s := r.NewStreaming(ctx, chat("big", 3))
			readAll(t, s)
			cancel()
			if !errors.Is(s.Err(), context.DeadlineExceeded) {
				t.Fatalf("Err() = %v, want context.DeadlineExceeded", s.Err())
			}
		}
		bad := chat("big", 3)
		bad.MaxTokens.Value = -1 // 400 from the server
		s := r.NewStreaming(context.Background(), bad)
		readAll(t, s)
		checkKind(t, s.Err(), tokenpace.KindRequest)
		if st, _ := r.BreakerState("big"); st != gobreaker.StateClosed {
			t.Errorf("BreakerState(big) = %v, want closed", st)
		}
	})
}

// TestBreakerSettingsGobreaker: the settings a Router gives a route's
// breaker, from zero and from set fields.
func TestBreakerSettingsGobreaker(t *testing.T) {
	var changed []string
	tests := []struct {
		s            tokenpace.BreakerSettings
		wantTimeout  time.Duration
		wantMaxReq   uint32
		wantTripAt   uint32 // consecutive failures that trip
		wantInterval time.Duration
	}{
		{tokenpace.BreakerSettings{}, 30 * time.Second, 1, 5, 0},
		{tokenpace.BreakerSettings{Failures: 2, Timeout: time.Second, HalfOpenRequests: 3, Interval: time.Minute}, time.Second, 3, 2, time.Minute},
		{tokenpace.BreakerSettings{ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= 9 }}, 30 * time.Second, 1, 9, 0},
		{tokenpace.BreakerSettings{OnStateChange: func(target, from, to string) { changed = append(changed, target+" "+from+" "+to) }}, 30 * time.Second, 1, 5, 0},
	}
	for i, tt := range tests {
		st := tt.s.Gobreaker("a")
		if st.Name != "a" || st.Timeout != tt.wantTimeout || st.MaxRequests != tt.wantMaxReq || st.Interval != tt.wantInterval {
			t.Errorf("%d: Gobreaker(a) = name %q, timeout %v, max requests %d, interval %v, want a, %v, %d, %v",
				i, st.Name, st.Timeout, st.MaxRequests, st.Interval, tt.wantTimeout, tt.wantMaxReq, tt.wantInterval)
		}
		if st.ReadyToTrip(gobreaker.Counts{ConsecutiveFailures: tt.wantTripAt - 1}) || !st.ReadyToTrip(gobreaker.Counts{ConsecutiveFailures: tt.wantTripAt}) {
			t.Errorf("%d: Gobreaker(a).ReadyToTrip does not trip at exactly %d consecutive failures", i, tt.wantTripAt)
		}
		if !st.IsExcluded(context.Canceled) || st.IsExcluded(errors.New("boom")) {
			t.Errorf("%d: Gobreaker(a).IsExcluded does not count failures as a Router does", i)
		}
		if st.OnStateChange != nil {
			st.OnStateChange("a", gobreaker.StateClosed, gobreaker.StateOpen)
		}
	}
	if want := []string{"a closed open"}; !slices.Equal(changed, want) {
		t.Errorf("OnStateChange calls = %q, want %q", changed, want)
	}
	if got := (tokenpace.BreakerSettings{}).Gobreaker("a"); got.Timeout != 30*time.Second || got.MaxRequests != 1 ||
		got.ReadyToTrip(gobreaker.Counts{ConsecutiveFailures: 4}) || !got.ReadyToTrip(gobreaker.Counts{ConsecutiveFailures: 5}) {
		t.Errorf("tokenpace.BreakerSettings{}.Gobreaker() = timeout %v, max requests %d; want 30s, 1, tripping at 5 failures", got.Timeout, got.MaxRequests)
	}
}

// TestBreakerDisabledKeepsRouteBreakers checks what BreakerSettings.Disabled
// turns off: the breakers a Router makes from the settings, not a breaker
// a route brings (Route.Breaker), which Policy.Breaker does not apply to.
// BreakerState reports a route's breaker whenever it has one.
func TestBreakerDisabledKeepsRouteBreakers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := simClient(t, []simulate.Option{simulate.WithModel("m", &simulate.Fixed{TTFT: 10 * msec, ITL: 10 * msec}),
			simulate.WithModel("n", &simulate.Fixed{TTFT: 10 * msec, ITL: 10 * msec})})
		open := gobreaker.NewTwoStepCircuitBreaker[struct{}](tokenpace.BreakerSettings{Failures: 1}.Gobreaker("m"))
		done, err := open.Allow()
		if err != nil {
			t.Fatal(err)
		}
		done(errors.New("server down"))
		own := route("m")
		own.Breaker = open
		r, err := tokenpace.NewRouter(c, tokenpace.Policy{Breaker: tokenpace.BreakerSettings{Disabled: true}}, own, route("n"))
		if err != nil {
			t.Fatal(err)
		}
		tests := []struct {
			target string
			state  gobreaker.State
			ok     bool
		}{
			{"m", gobreaker.StateOpen, true}, // the route's own breaker
			{"n", 0, false},                  // no breaker made: disabled
			{"x", 0, false},                  // unknown
		}
		for _, tt := range tests {
			if st, ok := r.BreakerState(tt.target); st != tt.state || ok != tt.ok {
				t.Errorf("BreakerState(%q) = %v, %v, want %v, %v", tt.target, st, ok, tt.state, tt.ok)
			}
		}
		s := r.NewStreaming(context.Background(), chat("m", 2))
		readAll(t, s)
		if got, want := outcomes(s.Timing()), []tokenpace.Outcome{tokenpace.OutcomeSkipped, tokenpace.OutcomeWon}; !slices.Equal(got, want) {
			t.Errorf("outcomes = %v, want %v (m's own breaker is open)", got, want)
		}
	})
}

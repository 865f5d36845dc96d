package tokenpace_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// simRoute returns a route named name to model "m" (50 ms to first
// token, 10 ms between tokens) of its own in-memory simulator started
// with sopts.
func simRoute(t *testing.T, name string, sopts ...simulate.Option) tokenpace.Route {
	t.Helper()
	return simRouteTimed(t, name, &simulate.Fixed{TTFT: 50 * msec, ITL: 10 * msec}, sopts...)
}

// simRouteTimed is simRoute with model "m" timed by m.
func simRouteTimed(t *testing.T, name string, m *simulate.Fixed, sopts ...simulate.Option) tokenpace.Route {
	t.Helper()
	ts := simulate.StartInMemory(t, append([]simulate.Option{simulate.WithModel("m", m), replyWords(3)}, sopts...)...)
	oc := openaiClient(ts.URL, ts.Client)
	return tokenpace.Route{Name: name, Client: &oc, Model: "m"}
}

// statuses returns the HTTP status of every request of tm.
func statuses(tm *tokenpace.Timing) []int {
	var s []int
	for _, h := range tm.HTTP {
		s = append(s, h.Status)
	}
	return s
}

// TestFollowServerSkipsBefore429: the primary's server admits two requests
// a second and says so in its headers. Following them, the third call
// skips the primary at once (its TTFT budget cannot wait for the reset)
// and never receives a 429; without, it is sent, answered 429, and falls
// back after that round trip. After the reset the primary answers again.
func TestFollowServerSkipsBefore429(t *testing.T) {
	for _, follow := range []bool{true, false} {
		name := map[bool]string{true: "follow", false: "static"}[follow]
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				primary := simRoute(t, "primary", simulate.WithRTT(20*msec),
					simulate.WithRateLimit(simulate.RateLimit{Requests: 2, Window: time.Second}))
				primary.Limit = tokenpace.Limit{FollowServer: follow}
				r, err := tokenpace.NewRouter(tokenpace.NewClient(openai.NewClient()),
					tokenpace.Policy{Budget: tokenpace.Budget{TTFT: 200 * msec}}, primary, simRoute(t, "backup"))
				if err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				for i := range 2 {
					if tm := callOK(t, r, chat("m", 3)); tm.Target != "primary" {
						t.Fatalf("call %d: target %q, want primary", i, tm.Target)
					}
				}
				tm := callOK(t, r, chat("m", 3))
				if tm.Target != "backup" {
					t.Fatalf("third call: target %q, want backup", tm.Target)
				}
				a := tm.Attempts[0]
				if follow {
					if a.Outcome != tokenpace.OutcomeSkipped || a.Admission != "server_limit" || !errors.Is(a.Err, tokenpace.ErrAdmission) {
						t.Errorf("third call's primary attempt = %+v, want skipped by the server's limit", a)
					}
					if got, want := statuses(tm), []int{200}; !slices.Equal(got, want) {
						t.Errorf("third call's statuses = %v, want %v (no 429)", got, want)
					}
					if got, want := tm.TTFT(), 50*msec; got != want {
						t.Errorf("third call's TTFT = %v, want %v (the backup's own)", got, want)
					}
				} else {
					if got, want := statuses(tm), []int{429, 200}; !slices.Equal(got, want) {
						t.Errorf("third call's statuses = %v, want %v", got, want)
					}
					if got, want := tm.TTFT(), 20*msec+50*msec; got != want {
						t.Errorf("third call's TTFT = %v, want %v (the 429's round trip, then the backup)", got, want)
					}
				}
				time.Sleep(time.Second - time.Since(start))
				if tm := callOK(t, r, chat("m", 3)); tm.Target != "primary" {
					t.Errorf("after the reset: target %q, want primary", tm.Target)
				}
			})
		})
	}
}

// TestFollowServerWaitsOnLastRoute: on its only route, a call waits for
// the server's window to reset instead of being answered 429, and its
// Queue says so.
func TestFollowServerWaitsOnLastRoute(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		only := simRoute(t, "only", simulate.WithRateLimit(simulate.RateLimit{Requests: 1, Window: time.Second}))
		only.Limit = tokenpace.Limit{FollowServer: true}
		r, err := tokenpace.NewRouter(tokenpace.NewClient(openai.NewClient()), tokenpace.Policy{}, only)
		if err != nil {
			t.Fatal(err)
		}
		callOK(t, r, chat("m", 3)) // 70 ms
		tm := callOK(t, r, chat("m", 3))
		if got, want := tm.Queue(), 930*msec; got != want {
			t.Errorf("Queue() = %v, want %v (until the window resets)", got, want)
		}
		if got, want := statuses(tm), []int{200}; !slices.Equal(got, want) || tm.Attempts[0].Admission != "server_limit" {
			t.Errorf("statuses %v admission %q, want %v server_limit", got, tm.Attempts[0].Admission, want)
		}
	})
}

// TestBreakerRamp: once the primary's breaker closes again, the primary
// receives a share of calls rising over the ramp; the others go to the
// backup, skipped as if the breaker were still open.
func TestBreakerRamp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		primary := simRoute(t, "primary", simulate.WithFaults(simulate.Faults{Script: func(i uint64) simulate.Fault {
			if i == 0 {
				return simulate.Fault{Kind: simulate.FaultServerError}
			}
			return simulate.Fault{}
		}}))
		pol := tokenpace.Policy{Breaker: tokenpace.BreakerSettings{Failures: 1, Timeout: time.Second, Ramp: 4 * time.Second}}
		r, err := tokenpace.NewRouter(tokenpace.NewClient(openai.NewClient()), pol, primary, simRoute(t, "backup"))
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		start := time.Now()
		at := func(d time.Duration) *tokenpace.Timing {
			time.Sleep(d - time.Since(start))
			s := r.NewStreaming(ctx, chat("m", 3))
			if got := readAll(t, s); got != words(1, 3) || s.Err() != nil {
				t.Fatalf("call at %v: %q, %v, want %q, nil", d, got, s.Err(), words(1, 3))
			}
			return s.Timing()
		}
		if tm := at(0); tm.Target != "backup" {
			t.Fatalf("first call: target %q, want backup (the primary failed)", tm.Target)
		}
		if tm := at(1500 * msec); tm.Target != "primary" {
			t.Fatalf("probe: target %q, want primary", tm.Target)
		}
		var got []string
		for i := range 9 {
			tm := at(2*time.Second + time.Duration(i)*500*msec)
			got = append(got, tm.Target)
			if tm.Target == "backup" && (tm.Attempts[0].Admission != "ramp" || !errors.Is(tm.Attempts[0].Err, tokenpace.ErrCircuitOpen)) {
				t.Errorf("call %d: primary attempt %+v, want skipped by the ramp", i, tm.Attempts[0])
			}
		}
		// Shares 0, 1/8, 2/8, ... dealt out evenly, then all.
		want := []string{"backup", "backup", "backup", "backup", "primary", "backup", "primary", "primary", "primary"}
		if !slices.Equal(got, want) {
			t.Errorf("targets after the breaker closed = %v, want %v", got, want)
		}
		if st, _ := r.BreakerState("primary"); st.String() != "closed" {
			t.Errorf("breaker = %v, want closed", st)
		}
	})
}

// TestFollowServerWaitsForRefill: the server's limit is 30,000 tokens a
// minute, refilled continuously as OpenAI's is; a first call uses 25,000
// of them, and the server reports 5,000 left and 50 s until full. On its
// only route, a call of 10,000 tokens waits about 10 s, until 5,000 more
// have refilled, not the 50 s until full; and it is not answered 429.
// (The server counts the prompt's 13 tokens where the client estimates 6:
// the 20 ms the headers take to reach the client more than make up the
// 14 ms those 7 tokens take to refill.)
func TestFollowServerWaitsForRefill(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		only := simRoute(t, "only", simulate.WithRTT(40*msec), simulate.WithRateLimit(simulate.RateLimit{Tokens: 30000}))
		only.Limit = tokenpace.Limit{FollowServer: true}
		r, err := tokenpace.NewRouter(tokenpace.NewClient(openai.NewClient()), tokenpace.Policy{}, only)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		callOK(t, r, chat("m", 25000-13)) // 25,000 tokens as the server counts them
		// Its headers reached the client at 40 ms; 5,000 tokens refill in 10 s.
		want := time.Until(start.Add(40*msec + 10*time.Second))
		tm := callOK(t, r, chat("m", 10000-6)) // 10,000 tokens as the client estimates them
		if got := tm.Queue(); got != want {
			t.Errorf("Queue() = %v, want %v (until 10,000 tokens have refilled, not the 50 s until full)", got, want)
		}
		if got, want := statuses(tm), []int{200}; !slices.Equal(got, want) || tm.Attempts[0].Admission != "server_limit" {
			t.Errorf("statuses %v admission %q, want %v server_limit", got, tm.Attempts[0].Admission, want)
		}
	})
}

// TestFollowServerSkipsUntilRefill: the primary's server admits a request
// a second, up to 2 at once, refilled continuously. Two calls leave it
// 0.2 of a request; the third is skipped (a request refills in 0.8 s,
// over the 200 ms TTFT budget), but the fourth, at 1.2 s, finds the
// request refilled and is sent to the primary at once, not skipped until
// the server is full again at 2 s; and no call is answered 429.
func TestFollowServerSkipsUntilRefill(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		primary := simRoute(t, "primary", simulate.WithRTT(40*msec),
			simulate.WithRateLimit(simulate.RateLimit{Requests: 2, Window: 2 * time.Second}))
		primary.Limit = tokenpace.Limit{FollowServer: true}
		r, err := tokenpace.NewRouter(tokenpace.NewClient(openai.NewClient()),
			tokenpace.Policy{Budget: tokenpace.Budget{TTFT: 200 * msec}}, primary, simRoute(t, "backup"))
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		var targets []string
		var got429 int
		var queue time.Duration
		for _, at := range []time.Duration{0, 200 * msec, 500 * msec, 1200 * msec} {
			time.Sleep(at - time.Since(start))
			tm := callOK(t, r, chat("m", 3))
			targets = append(targets, tm.Target)
			for _, s := range statuses(tm) {
				if s == 429 {
					got429++
				}
			}
			queue = max(queue, tm.Queue())
		}
		if want := []string{"primary", "primary", "backup", "primary"}; !slices.Equal(targets, want) {
			t.Errorf("targets = %v, want %v", targets, want)
		}
		if got429 != 0 || queue != 0 {
			t.Errorf("429s = %d, longest Queue() = %v, want 0, 0", got429, queue)
		}
	})
}

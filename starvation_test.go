package tokenpace

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/sony/gobreaker/v2"

	"github.com/tokenpace/tokenpace/simulate"
)

// The scheduler latency the runtime measures is real time, while most
// tests of this package run on synctest's virtual time: on a loaded
// machine they would see breaches marked as the client's at random. The
// tests of the signal set their own sampler.
func init() { sampleSched = nil }

// schedAt returns a sampler whose readings count, in band j, one more
// wait at each call: every attempt then sees a wait of starvedAfter<<j
// between its start and its breach.
func schedAt(j int) func() schedReading {
	var n atomic.Uint64
	return func() schedReading {
		var r schedReading
		r[j] = n.Add(1)
		return r
	}
}

// TestSchedWaitMarksBreach: a breach is marked as the client's when a
// goroutine waited for a CPU long enough during the attempt, on the
// watchdog's timer (TTFT) and on the reader's path (MinTPS).
func TestSchedWaitMarksBreach(t *testing.T) {
	none := func() schedReading { return schedReading{} }
	tests := []struct {
		name     string
		b        Budget
		sched    func() schedReading
		wantLate time.Duration
	}{
		{"ttft, no wait", Budget{TTFT: 100 * time.Millisecond}, none, 0},
		{"ttft, 40ms wait", Budget{TTFT: 100 * time.Millisecond}, schedAt(1), 40 * time.Millisecond},
		{"ttft, 2.56s wait", Budget{TTFT: 100 * time.Millisecond}, schedAt(schedBands - 1), 2560 * time.Millisecond},
		{"ttft 1s, 40ms wait", Budget{TTFT: time.Second}, schedAt(1), 0},
		{"ttft 1s, 160ms wait", Budget{TTFT: time.Second}, schedAt(3), 160 * time.Millisecond},
		{"no sampler", Budget{TTFT: 100 * time.Millisecond}, nil, 0},
		{"tps, 20ms wait", Budget{MinTPS: 100, Warmup: 2}, schedAt(0), 20 * time.Millisecond},
		{"tps, no wait", Budget{MinTPS: 100, Warmup: 2}, none, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := sampleSched
			sampleSched = tt.sched
			defer func() { sampleSched = old }()
			start := time.Now()
			var got []BudgetError
			w := newWatchdog(tt.b, start, start, func(b BudgetError, _ bool) { got = append(got, b) })
			w.stopTimer()
			if tt.b.MinTPS > 0 {
				// 1 token per second where 100 are the floor.
				w.token(start.Add(time.Second), 1)
				w.token(start.Add(2*time.Second), 1)
			} else {
				w.fireAt(start.Add(tt.b.TTFT))
			}
			if len(got) != 1 || got[0].Late != tt.wantLate {
				t.Errorf("breaches = %+v, want one with Late %v", got, tt.wantLate)
			}
		})
	}
}

// TestSchedWaitSparesBreaker: through a Router, a TTFT breach measured
// while a goroutine waited 80 ms for a CPU does not count against the
// route's breaker, and Timing says so; without the wait it does.
func TestSchedWaitSparesBreaker(t *testing.T) {
	for _, tt := range []struct {
		name      string
		sched     func() schedReading
		wantLate  time.Duration
		wantState gobreaker.State
	}{
		{"on time", func() schedReading { return schedReading{} }, 0, gobreaker.StateOpen},
		{"starved", schedAt(2), 80 * time.Millisecond, gobreaker.StateClosed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			old := sampleSched
			sampleSched = tt.sched
			defer func() { sampleSched = old }()
			synctest.Test(t, func(t *testing.T) {
				r := slowBigRouter(t, Policy{
					Budget:  Budget{TTFT: 100 * time.Millisecond},
					Breaker: BreakerSettings{Failures: 1},
				})
				s := r.NewStreaming(context.Background(), hiTo("big"))
				for s.Next() {
				}
				if err := s.Err(); err != nil {
					t.Fatalf("Err() = %v, want nil (fell back)", err)
				}
				s.Close()
				if got := s.Timing().Breaches; len(got) != 1 || got[0].Phase != PhaseTTFT || got[0].Late != tt.wantLate {
					t.Errorf("Breaches = %+v, want one of phase ttft with Late %v", got, tt.wantLate)
				}
				if st, _ := r.BreakerState("big"); st != tt.wantState {
					t.Errorf("BreakerState(big) = %v, want %v", st, tt.wantState)
				}
			})
		})
	}
}

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
		w := newWatchdog(Budget{TTFT: 100 * time.Millisecond}, start, start, func(b BudgetError, _ bool) { got = b })
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
				r := slowBigRouter(t, Policy{Breaker: BreakerSettings{Failures: 1}})
				s := r.NewStreaming(context.Background(), hiTo("big"))
				time.Sleep(200 * time.Millisecond)
				c := s.src.(*call)
				c.mu.Lock()
				tr := c.tries[0]
				c.mu.Unlock()
				// The watchdog of a starved client fires late.
				c.onTry(tr, tryReport{kind: reportBreach, waited: true,
					breach: &BudgetError{Phase: PhaseTTFT, Limit: 100 * time.Millisecond, Observed: 200 * time.Millisecond, Late: tt.late}})
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

// slowBigRouter returns a Router under p over an in-memory simulator, its
// first route "big" answering after 10 s and its second "small" after
// 50 ms; run it inside a synctest bubble.
func slowBigRouter(t *testing.T, p Policy) *Router {
	t.Helper()
	ts := simulate.StartInMemory(t,
		simulate.WithModel("big", &simulate.Fixed{TTFT: 10 * time.Second}),
		simulate.WithModel("small", &simulate.Fixed{TTFT: 50 * time.Millisecond}))
	oc := openai.NewClient(option.WithBaseURL(ts.URL), option.WithHTTPClient(ts.Client),
		option.WithAPIKey("sk-test-secret"), option.WithMaxRetries(0))
	r, err := NewRouter(NewClient(oc), p,
		Route{Name: "big", Model: "big"}, Route{Name: "small", Model: "small"})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// hiTo returns a chat request to model that says "hi".
func hiTo(model string) openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{
		Model:    model,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
	}
}

// TestReadSched: the runtime provides the histogram, and readings only
// grow.
func TestReadSched(t *testing.T) {
	a := readSched()
	b := readSched()
	for j := range a {
		if b[j] < a[j] {
			t.Errorf("readSched() band %d went from %d to %d, want it never to shrink", j, a[j], b[j])
		}
	}
	if got := a.waitedSince(a); got != 0 {
		t.Errorf("r.waitedSince(r) = %v, want 0", got)
	}
	if raceEnabled {
		return // the pool readSched takes its samples from drops them at random
	}
	if got := testing.AllocsPerRun(100, func() { readSched() }); got != 0 {
		t.Errorf("readSched() allocates %v times, want 0", got)
	}
}

// TestWaitedSince: the longest band that grew, or zero.
func TestWaitedSince(t *testing.T) {
	tests := []struct {
		then, now schedReading
		want      time.Duration
	}{
		{schedReading{}, schedReading{}, 0},
		{schedReading{5}, schedReading{6}, starvedAfter},
		{schedReading{5, 0, 3}, schedReading{9, 0, 4}, 4 * starvedAfter},
		{schedReading{0, 0, 0, 0, 0, 0, 0, 1}, schedReading{0, 0, 0, 0, 0, 0, 0, 2}, 128 * starvedAfter},
		{schedReading{1, 2, 3}, schedReading{1, 2, 3}, 0},
	}
	for _, tt := range tests {
		if got := tt.now.waitedSince(tt.then); got != tt.want {
			t.Errorf("%v.waitedSince(%v) = %v, want %v", tt.now, tt.then, got, tt.want)
		}
	}
}

// BenchmarkReadSched is the cost a watchdog adds to an attempt: one
// reading when the attempt is sent, one more if it breaches.
func BenchmarkReadSched(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		readSched()
	}
}

package metrics_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"go.uber.org/goleak"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/metrics"
	"github.com/tokenpace/tokenpace/simulate"
)

// loadRun is the outcome of one loadTest.
type loadRun struct {
	// heap holds the live heap after a collection at the end of each half.
	heap [2]uint64
	// fallbacks counts calls that needed more than one attempt.
	fallbacks int64
	elapsed   time.Duration
}

// loadTest sends requests calls, streams at a time, through a Router of
// two routes over real loopback HTTP, with a metrics.Recorder fed by the
// client's hooks: a primary simulator failing about 15% of its requests
// before their first token (500, 503 with Retry-After, a reset before the
// headers) and a clean fallback one. Every call must end cleanly with all
// its tokens, the Recorder must count every call, and once the idle
// connections are closed no goroutine may be left.
func loadTest(t *testing.T, requests, streams int) loadRun {
	t.Helper()
	const tokens = 16
	// A Scheduler serves one server: each gets its own.
	model := func() simulate.Option {
		return simulate.WithModel("m", &simulate.Fixed{TTFT: 5 * time.Millisecond, ITL: 2 * time.Millisecond})
	}
	faulty := simulate.StartLoopback(t, model(), simulate.WithFaults(simulate.Faults{
		ServerError: 0.05, Unavailable: 0.05, ResetBeforeHeaders: 0.05, For: 20 * time.Millisecond, Seed: 1,
	}))
	clean := simulate.StartLoopback(t, model())
	rec := metrics.NewRecorder()
	oc := openai.NewClient(option.WithBaseURL(faulty.URL), option.WithHTTPClient(faulty.Client),
		option.WithAPIKey("sk-test-secret"), option.WithMaxRetries(0))
	c := tokenpace.NewClient(oc, tokenpace.WithHooks(rec.Hooks()))
	r, err := tokenpace.NewRouter(c, tokenpace.Policy{
		// Generous: the watchdogs run, but no breach is expected on a
		// machine shared with other work.
		Budget: tokenpace.Budget{TTFT: 30 * time.Second},
		// Never open: every call tries the faulty route first.
		Breaker: tokenpace.BreakerSettings{Disabled: true},
	},
		tokenpace.Route{Name: "faulty", Model: "m"},
		tokenpace.Route{Name: "clean", Model: "m",
			Options: []option.RequestOption{option.WithBaseURL(clean.URL), option.WithHTTPClient(clean.Client)}})
	if err != nil {
		t.Fatalf("NewRouter() error = %v", err)
	}
	closeIdle := func() {
		faulty.Client.CloseIdleConnections()
		clean.Client.CloseIdleConnections()
	}
	base := goleak.IgnoreCurrent()

	var run loadRun
	var failed, fallbacks atomic.Int64
	params := openai.ChatCompletionNewParams{
		Model:     "m",
		Messages:  []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Tell me about latency.")},
		MaxTokens: openai.Int(tokens),
	}
	one := func() error {
		s := r.NewStreaming(context.Background(), params)
		defer s.Close()
		n := 0
		for s.Next() {
			for _, ch := range s.Current().Choices {
				if ch.Delta.Content != "" {
					n++
				}
			}
		}
		if err := s.Err(); err != nil {
			return err
		}
		tm := s.Timing()
		if n != tokens || tm.OutputTokens != tokens {
			return fmt.Errorf("got %d content chunks, %d output tokens, want %d, %d", n, tm.OutputTokens, tokens, tokens)
		}
		if len(tm.Attempts) > 1 {
			fallbacks.Add(1)
		}
		return nil
	}
	half := func(k int) {
		var next atomic.Int64
		var wg sync.WaitGroup
		for range streams {
			wg.Go(func() {
				for next.Add(1) <= int64(requests/2) {
					if err := one(); err != nil {
						if failed.Add(1) <= 5 {
							t.Errorf("call: %v", err)
						}
					}
				}
			})
		}
		wg.Wait()
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		run.heap[k] = ms.HeapAlloc
	}
	start := time.Now()
	half(0)
	half(1)
	run.elapsed = time.Since(start)
	run.fallbacks = fallbacks.Load()
	if n := failed.Load(); n > 0 {
		t.Errorf("%d of %d calls failed, want none", n, requests)
	}

	snap := rec.Snapshot()
	total := requests / 2 * 2
	if snap.Requests != int64(total) || snap.Completed != int64(total) || snap.Failed != 0 {
		t.Errorf("Recorder: %d requests, %d completed, %d failed, want %d, %d, 0", snap.Requests, snap.Completed, snap.Failed, total, total)
	}
	if snap.OutputTokens != int64(total*tokens) {
		t.Errorf("Recorder: %d output tokens, want %d", snap.OutputTokens, total*tokens)
	}
	if run.fallbacks == 0 {
		t.Errorf("no call fell back: the faulty route did not fail")
	}

	closeIdle()
	goleak.VerifyNone(t, base)
	return run
}

// TestLoadSmall is the load run at a size every test run affords.
func TestLoadSmall(t *testing.T) {
	loadTest(t, 500, 64)
}

// TestLoad sends 5,000 calls at 256 concurrent streams and checks, beside
// what loadTest checks, that the live heap after the second half is no
// larger than after the first, within 25% and 4 MiB. It runs when
// TOKENPACE_LOAD is set, as it takes seconds of both cores.
func TestLoad(t *testing.T) {
	if os.Getenv("TOKENPACE_LOAD") == "" {
		t.Skip("set TOKENPACE_LOAD=1 to run")
	}
	run := loadTest(t, 5000, 256)
	t.Logf("5000 calls at 256 streams in %v, %d fell back; live heap after 2,500: %.1f MiB, after 5,000: %.1f MiB",
		run.elapsed.Round(time.Millisecond), run.fallbacks, mib(run.heap[0]), mib(run.heap[1]))
	if lim := run.heap[0] + run.heap[0]/4 + 4<<20; run.heap[1] > lim {
		t.Errorf("live heap after 5,000 calls = %.1f MiB, want at most %.1f MiB (%.1f MiB after 2,500)",
			mib(run.heap[1]), mib(lim), mib(run.heap[0]))
	}
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

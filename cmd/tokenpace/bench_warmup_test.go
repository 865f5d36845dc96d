package main

import (
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/metrics"
	"github.com/tokenpace/tokenpace/simulate"
)

// inFlight is a transport that counts the requests in flight at once.
type inFlight struct {
	next      http.RoundTripper
	mu        sync.Mutex
	now, peak int
}

func (c *inFlight) RoundTrip(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.now++
	c.peak = max(c.peak, c.now)
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.now--
		c.mu.Unlock()
	}()
	return c.next.RoundTrip(r)
}

// The warm-up of an open loop with no cap in flight sends at most
// maxWarmupClients at once: it sent all of them at once, a goroutine and
// a stream each, so that --rate 5 --warmup 200000 took 14.6 GB and,
// stopped by SIGTERM, 199 s to exit.
func TestWarmupOfAnUncappedRunIsBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sim, err := simulate.ServeInMemory(simulate.WithModel("sim", &simulate.Fixed{TTFT: 10 * time.Millisecond, ITL: time.Millisecond}))
		if err != nil {
			t.Fatal(err)
		}
		defer sim.Close()
		count := &inFlight{next: sim.Client().Transport}
		oc := openai.NewClient(option.WithBaseURL(sim.BaseURL()), option.WithHTTPClient(&http.Client{Transport: count}), option.WithAPIKey("simulator"), option.WithMaxRetries(0))
		g := &loadGen{client: tokenpace.NewClient(oc), params: newPromptMaker("sim", 64, 8, 1), recorder: metrics.NewRecorder(),
			requests: 1, concurrency: 0, rate: 5, warmup: 1000, timeout: time.Minute, progress: noProgress{}}
		res := g.run(t.Context())
		if res.snap.Completed != 1 {
			t.Fatalf("completed = %d, want 1", res.snap.Completed)
		}
		if count.peak > maxWarmupClients {
			t.Errorf("a warm-up of 1000 requests with no cap had %d in flight at once, want at most %d", count.peak, maxWarmupClients)
		}
	})
}

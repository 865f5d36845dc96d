package tokenpace_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/metrics"
	"github.com/tokenpace/tokenpace/simulate"
)

// limitResult is one row of the server-limits table.
type limitResult struct {
	name      string
	ttft      metrics.Dist
	got429    int // 429 responses the Router's calls received
	onPrimary int // calls the provider answered
	calls     int
	sorted    []time.Duration // the callers' TTFTs, sorted
}

// Workload of the server-limits measurement.
const (
	limCalls    = 600
	limRate     = 2.0                    // calls a second, Poisson
	limQuota    = 18                     // the provider's requests per window, shared with another process
	limWindow   = 10 * time.Second       // the provider's window
	limOther    = 0.4                    // the other process's requests a second, Poisson
	limRTT      = 100 * time.Millisecond // to the provider
	limTTFT     = 30 * time.Millisecond  // the provider's own
	limBudget   = 300 * time.Millisecond // the calls' TTFT budget
	limFallback = 180 * time.Millisecond // the self-hosted fallback's TTFT
)

// runLimits sends limCalls Poisson calls through a Router whose first
// route is a hosted provider with a request quota per window that another
// process shares (it reports the quota in OpenAI's headers), and whose
// second is a self-hosted replica, slower to first token but unlimited.
func runLimits(t *testing.T, name string, lim tokenpace.Limit) limitResult {
	var res limitResult
	synctest.Test(t, func(t *testing.T) {
		provider := simulate.StartInMemory(t, simulate.WithModel("m", &simulate.Fixed{TTFT: limTTFT, ITL: 10 * msec}),
			simulate.WithRTT(limRTT), simulate.WithRateLimit(simulate.RateLimit{Requests: limQuota, Window: limWindow}))
		pc := openaiClient(provider.URL, provider.Client)
		primary := tokenpace.Route{Name: "provider", Client: &pc, Model: "m", Limit: lim}
		r, err := tokenpace.NewRouter(tokenpace.NewClient(openai.NewClient()),
			tokenpace.Policy{Budget: tokenpace.Budget{TTFT: limBudget}},
			primary, simRouteTimed(t, "replica", &simulate.Fixed{TTFT: limFallback, ITL: 10 * msec}))
		if err != nil {
			t.Fatal(err)
		}
		ctx, stop := context.WithCancel(context.Background())
		var (
			mu  sync.Mutex
			wg  sync.WaitGroup
			all []time.Duration
		)
		wg.Go(func() { // the other process sharing the provider's quota
			rng := rand.New(rand.NewPCG(2, 2))
			for {
				select {
				case <-ctx.Done():
					return
				case <-time.After(time.Duration(rng.ExpFloat64() / limOther * float64(time.Second))):
				}
				s := pc.Chat.Completions.NewStreaming(ctx, chat("m", 3))
				for s.Next() {
				}
				s.Close()
			}
		})
		rng := rand.New(rand.NewPCG(1, 1))
		var calls sync.WaitGroup
		for range limCalls {
			time.Sleep(time.Duration(rng.ExpFloat64() / limRate * float64(time.Second)))
			calls.Go(func() {
				s := r.NewStreaming(context.Background(), chat("m", 3))
				readAll(t, s)
				if err := s.Err(); err != nil {
					t.Errorf("%s: Err() = %v", name, err)
					return
				}
				tm := s.Timing()
				mu.Lock()
				defer mu.Unlock()
				all = append(all, tm.UserTTFT())
				for _, h := range tm.HTTP {
					if h.Status == 429 {
						res.got429++
					}
				}
				if tm.Target == "provider" {
					res.onPrimary++
				}
			})
		}
		calls.Wait()
		stop()
		wg.Wait()
		res.name, res.ttft, res.calls, res.sorted = name, metrics.DistOf(all), len(all), all
	})
	return res
}

// TestServerLimitsFollow measures 429s received and the caller's TTFT with
// and without following the provider's rate-limit headers. Run:
//
//	go test -run TestServerLimitsFollow -v .
func TestServerLimitsFollow(t *testing.T) {
	rows := []limitResult{
		runLimits(t, "no client-side limit", tokenpace.Limit{}),
		runLimits(t, fmt.Sprintf("static limit at the quota (RPS %g, burst %d)", float64(limQuota)/limWindow.Seconds(), limQuota),
			tokenpace.Limit{RPS: float64(limQuota) / limWindow.Seconds(), Burst: limQuota}),
		runLimits(t, "FollowServer", tokenpace.Limit{FollowServer: true}),
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| policy (%d calls at %.0f/s; quota %d per %v, shared) | 429s received | p50 TTFT | p95 TTFT | p99 TTFT | max TTFT | answered by the provider |\n|---|---|---|---|---|---|---|\n",
		limCalls, limRate, limQuota, limWindow)
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %d | %v | %v | %v | %v | %d of %d |\n", r.name, r.got429, r.ttft.P50.Round(time.Millisecond),
			rank(r.sorted, 0.95).Round(time.Millisecond), r.ttft.P99.Round(time.Millisecond), r.ttft.Max.Round(time.Millisecond), r.onPrimary, r.calls)
	}
	t.Logf("limits that follow the server:\n%s", b.String())
	none, follow := rows[0], rows[2]
	if follow.got429 >= none.got429/5 {
		t.Errorf("429s with FollowServer = %d, want under a fifth of %d without", follow.got429, none.got429)
	}
	if p95, nonep95 := rank(follow.sorted, 0.95), rank(none.sorted, 0.95); p95 >= nonep95 || follow.ttft.P99 > none.ttft.P99 {
		t.Errorf("TTFT with FollowServer p95 %v p99 %v, want p95 below %v and p99 at most %v without",
			p95, follow.ttft.P99, nonep95, none.ttft.P99)
	}
}

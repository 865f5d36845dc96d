package tokenpace_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/metrics"
	"github.com/tokenpace/tokenpace/simulate"
)

// voiceBotTTFT is the TTFT of the n-th request (from 0) to a replica:
// healthy ones spread over 80..140 ms; with slowEvery > 0 every
// slowEvery-th request (from the 8th) takes 2 s.
func voiceBotTTFT(slowEvery int) *simulate.Fixed {
	var n atomic.Int64
	return &simulate.Fixed{ITL: 10 * msec, PerRequest: func(simulate.Request) (time.Duration, time.Duration) {
		i := n.Add(1) - 1
		if slowEvery > 0 && i%int64(slowEvery) == 7 {
			return 2 * time.Second, 0
		}
		return 80*msec + time.Duration(i*37%61)*msec, 0
	}}
}

// tailResult is one row of the tail-at-scale table.
type tailResult struct {
	name     string
	stats    metrics.Dist
	p95      time.Duration
	requests int             // requests sent, over all attempts
	ttfts    []time.Duration // sorted
}

// runVoiceBot sends n sequential voice-bot calls (4 output tokens each)
// through a Router over a primary, 10% of whose requests take 2 s to the
// first token, and a healthy replica.
func runVoiceBot(t *testing.T, name string, n int, p tokenpace.Policy, replica bool) tailResult {
	var res tailResult
	synctest.Test(t, func(t *testing.T) {
		routes := []tokenpace.Route{route("primary")}
		if replica {
			routes = append(routes, route("replica"))
		}
		r := router(t, p, []simulate.Option{
			simulate.WithModel("primary", voiceBotTTFT(10)),
			simulate.WithModel("replica", voiceBotTTFT(0)),
		}, routes...)
		ttfts := make([]time.Duration, 0, n)
		sent := 0
		for range n {
			s := r.NewStreaming(context.Background(), chat("primary", 4))
			readAll(t, s)
			if err := s.Err(); err != nil {
				t.Fatalf("%s: Err() = %v, want nil", name, err)
			}
			tm := s.Timing()
			ttfts = append(ttfts, tm.UserTTFT())
			for _, a := range tm.Attempts {
				if a.Outcome != tokenpace.OutcomeSkipped {
					sent++
				}
			}
		}
		res = tailResult{name: name, stats: metrics.DistOf(ttfts), requests: sent, ttfts: ttfts}
		res.p95 = rank(ttfts, 0.95) // DistOf sorted ttfts
	})
	return res
}

// rank returns the nearest-rank q-quantile of sorted d.
func rank(d []time.Duration, q float64) time.Duration {
	i := int(q*float64(len(d))+0.999999) - 1
	return d[min(max(i, 0), len(d)-1)]
}

// TestVoiceBotTail is the tail-at-scale figure of the voice-bot scenario:
// p50/p95/p99 time to first token, as the caller lives it, without a
// policy, with a 180 ms TTFT budget and fallback, and with hedging at the
// learnt p95 and p50 of the primary, and the requests each sends. On
// virtual time the figures are exact, except that a hedge timer and a
// first token due at the same instant may fire in either order, so the
// hedged rows can move by a few milliseconds between runs. Run:
//
//	go test -run TestVoiceBotTail -v .
func TestVoiceBotTail(t *testing.T) {
	const n = 1000
	rows := []tailResult{
		runVoiceBot(t, "no policy", n, tokenpace.Policy{}, false),
		runVoiceBot(t, "fallback, TTFT budget 180 ms", n, tokenpace.Policy{Budget: tokenpace.Budget{TTFT: 180 * msec}}, true),
		runVoiceBot(t, "hedge at learnt p95 (150 ms until 20 samples)", n, tokenpace.Policy{Hedge: tokenpace.Hedge{After: 150 * msec, Percentile: 0.95}}, true),
		runVoiceBot(t, "hedge at learnt p50 (150 ms until 20 samples)", n, tokenpace.Policy{Hedge: tokenpace.Hedge{After: 150 * msec, Percentile: 0.5}}, true),
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| policy (%d calls, 10%% of primary requests at 2 s TTFT) | p50 TTFT | p95 TTFT | p99 TTFT | max TTFT | requests sent | extra |\n|---|---|---|---|---|---|---|\n", n)
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %v | %v | %v | %v | %d | %+.1f%% |\n", r.name, r.stats.P50, r.p95, r.stats.P99, r.stats.Max, r.requests, 100*float64(r.requests-n)/n)
	}
	var healthy []time.Duration
	for _, d := range rows[0].ttfts {
		if d < time.Second {
			healthy = append(healthy, d)
		}
	}
	fmt.Fprintf(&b, "\nhealthy primary requests (no policy, TTFT < 1 s): p50 %v, p95 %v, p99 %v\n", rank(healthy, 0.5), rank(healthy, 0.95), rank(healthy, 0.99))
	t.Logf("voice-bot tail at scale:\n%s", b.String())

	none, fb, hedge := rows[0], rows[1], rows[2]
	if none.stats.P99 != 2*time.Second {
		t.Errorf("no policy: p99 = %v, want 2s", none.stats.P99)
	}
	if fb.stats.P99 > 180*msec+140*msec {
		t.Errorf("fallback: p99 = %v, want at most 320ms (budget + the replica's slowest TTFT)", fb.stats.P99)
	}
	if hedge.stats.P99 >= fb.stats.P99 {
		t.Errorf("hedge: p99 = %v, want below fallback's %v", hedge.stats.P99, fb.stats.P99)
	}
	if fb.requests != n+n/10 {
		t.Errorf("fallback: %d requests, want %d (one extra per slow primary request)", fb.requests, n+n/10)
	}
}

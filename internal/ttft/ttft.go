// Package ttft is a route's online model of its time to first token: a
// least-squares line of TTFT against uncached prompt tokens, with weights
// that decay so that it follows a server whose speed drifts, and the recent
// TTFTs in a sliding window for percentiles. A Router keeps one per route:
// admission asks it whether a route can meet a TTFT budget, and a hedge
// waits for one of its percentiles.
package ttft

import (
	"slices"
	"sync"
	"time"
)

// Window is how many recent TTFTs a percentile is computed over.
const Window = 256

// decay weighs the least-squares sums of the TTFT model: each new
// observation multiplies the old ones' weight by it, so the model follows a
// server whose speed drifts (an effective memory of about 64 requests).
const decay = 1 - 1.0/64

// Model is an online model of one route's TTFT: a least-squares line of
// TTFT against uncached prompt tokens (long prompts cost more prefill),
// with exponentially decaying weights, and the recent TTFTs in a sliding
// window for percentiles. The zero value is ready to use; a Model is safe
// for concurrent use.
type Model struct {
	mu sync.Mutex
	// Decayed sums of weights, x (prompt tokens), y (TTFT in seconds),
	// x², and x·y.
	w, sx, sy, sxx, sxy float64

	ring   [Window]time.Duration // recent TTFTs in arrival order
	n      int                   // ring entries in use
	pos    int                   // next ring slot
	sorted []time.Duration       // the ring's entries, sorted
}

// Observe learns that a request with promptTokens uncached prompt tokens
// had the given TTFT.
func (p *Model) Observe(promptTokens int, ttft time.Duration) {
	if ttft <= 0 {
		return
	}
	x, y := float64(max(promptTokens, 0)), ttft.Seconds()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.w = p.w*decay + 1
	p.sx = p.sx*decay + x
	p.sy = p.sy*decay + y
	p.sxx = p.sxx*decay + x*x
	p.sxy = p.sxy*decay + x*y

	if p.n == Window {
		old := p.ring[p.pos]
		i, _ := slices.BinarySearch(p.sorted, old)
		p.sorted = slices.Delete(p.sorted, i, i+1)
	} else {
		p.n++
	}
	p.ring[p.pos] = ttft
	p.pos = (p.pos + 1) % Window
	i, _ := slices.BinarySearch(p.sorted, ttft)
	p.sorted = slices.Insert(p.sorted, i, ttft)
}

// Predict returns the expected TTFT of a request with promptTokens
// uncached prompt tokens, and false before any observation.
func (p *Model) Predict(promptTokens int) (time.Duration, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.w == 0 {
		return 0, false
	}
	x := float64(max(promptTokens, 0))
	mx, my := p.sx/p.w, p.sy/p.w
	varx := p.sxx/p.w - mx*mx
	y := my
	if varx > 1e-9*(1+mx*mx) {
		slope := max((p.sxy/p.w-mx*my)/varx, 0)
		y = my + slope*(x-mx)
	}
	return time.Duration(max(y, 0) * float64(time.Second)), true
}

// Percentile returns the nearest-rank q-quantile (0 < q ≤ 1) of the
// recent TTFTs and how many there are.
func (p *Model) Percentile(q float64) (time.Duration, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.n == 0 {
		return 0, 0
	}
	return nearestRank(p.sorted, q), p.n
}

// nearestRank returns the nearest-rank q-quantile (0 < q ≤ 1) of sorted,
// which must not be empty.
func nearestRank(sorted []time.Duration, q float64) time.Duration {
	i := int(q*float64(len(sorted))+0.999999) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

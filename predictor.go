package tokenpace

import (
	"encoding/json"
	"slices"
	"sync"
	"time"

	"github.com/openai/openai-go/v3"
)

// ttftWindow is how many recent TTFTs of a route the percentile is
// computed over.
const ttftWindow = 256

// predictorDecay weighs the least-squares sums of the TTFT model: each new
// observation multiplies the old ones' weight by it, so the model follows a
// server whose speed drifts (an effective memory of about 64 requests).
const predictorDecay = 1 - 1.0/64

// predictor is an online model of one route's TTFT: a least-squares line
// of TTFT against uncached prompt tokens (long prompts cost more prefill),
// with exponentially decaying weights, and the recent TTFTs in a sliding
// window for percentiles. It is safe for concurrent use.
type predictor struct {
	mu sync.Mutex
	// Decayed sums of weights, x (prompt tokens), y (TTFT in seconds),
	// x², and x·y.
	w, sx, sy, sxx, sxy float64

	ring   [ttftWindow]time.Duration // recent TTFTs in arrival order
	n      int                       // ring entries in use
	pos    int                       // next ring slot
	sorted []time.Duration           // the ring's entries, sorted
}

// observe learns that a request with promptTokens uncached prompt tokens
// had the given TTFT.
func (p *predictor) observe(promptTokens int, ttft time.Duration) {
	if ttft <= 0 {
		return
	}
	x, y := float64(max(promptTokens, 0)), ttft.Seconds()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.w = p.w*predictorDecay + 1
	p.sx = p.sx*predictorDecay + x
	p.sy = p.sy*predictorDecay + y
	p.sxx = p.sxx*predictorDecay + x*x
	p.sxy = p.sxy*predictorDecay + x*y

	if p.n == ttftWindow {
		old := p.ring[p.pos]
		i, _ := slices.BinarySearch(p.sorted, old)
		p.sorted = slices.Delete(p.sorted, i, i+1)
	} else {
		p.n++
	}
	p.ring[p.pos] = ttft
	p.pos = (p.pos + 1) % ttftWindow
	i, _ := slices.BinarySearch(p.sorted, ttft)
	p.sorted = slices.Insert(p.sorted, i, ttft)
}

// predict returns the expected TTFT of a request with promptTokens
// uncached prompt tokens, and false before any observation.
func (p *predictor) predict(promptTokens int) (time.Duration, bool) {
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

// percentile returns the nearest-rank q-quantile (0 < q ≤ 1) of the
// recent TTFTs and how many there are.
func (p *predictor) percentile(q float64) (time.Duration, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.n == 0 {
		return 0, 0
	}
	return nearestRank(p.sorted, q), p.n
}

// estimateTokens estimates the prompt tokens of messages at four bytes of
// text a token, the usual rule for English with BPE tokenizers.
func estimateTokens(messages []openai.ChatCompletionMessageParamUnion) int {
	n := 0
	for _, m := range messages {
		switch c := m.GetContent().AsAny().(type) {
		case *string:
			n += len(*c)
		case nil:
		default:
			b, _ := json.Marshal(c)
			n += len(b)
		}
	}
	return (n + 3) / 4
}

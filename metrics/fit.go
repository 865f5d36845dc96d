package metrics

import (
	"encoding/json"
	"math"
	"time"
)

// Fit is a least-squares line through (uncached prompt tokens, TTFT): what
// each extra prompt token costs in prefill, so users can see what a long
// prompt will cost before sending one. The zero Fit has no samples.
type Fit struct {
	// N is the number of requests fitted.
	N int64
	// Intercept is the TTFT of an empty prompt: network, queueing and
	// fixed overhead.
	Intercept time.Duration
	// PerKToken is the TTFT added by every 1000 uncached prompt tokens.
	PerKToken time.Duration
	// R2 is the coefficient of determination, 0..1: how much of the
	// variation of TTFT the prompt length explains.
	R2 float64
	// MinTokens and MaxTokens bound the uncached prompt lengths fitted;
	// predictions outside them are extrapolations.
	MinTokens, MaxTokens int
}

// minFitSpread is the spread of prompt lengths, in tokens, below which a
// fit says more about noise than about prefill.
const minFitSpread = 256

// Meaningful reports whether f rests on enough requests (three or more:
// two fit any line) of prompt lengths spread widely enough (at least 256
// tokens apart) to tell prefill cost from noise.
func (f Fit) Meaningful() bool {
	return f.N >= 3 && f.MaxTokens-f.MinTokens >= minFitSpread
}

// Predict returns the TTFT the fit predicts for a prompt of tokens uncached
// tokens, or 0 when the fit has fewer than two distinct prompt lengths. The
// line ignores attention's quadratic term, so far past MaxTokens it
// underestimates.
func (f Fit) Predict(tokens int) time.Duration {
	if f.N < 2 {
		return 0
	}
	return f.Intercept + time.Duration(float64(f.PerKToken)*float64(tokens)/1000)
}

// MarshalJSON renders f as
// {"n","intercept_ms","ms_per_1k_tokens","r2","min_tokens","max_tokens"}.
func (f Fit) MarshalJSON() ([]byte, error) {
	return json.Marshal(fitJSON{N: f.N, Intercept: ms(f.Intercept), PerK: ms(f.PerKToken), R2: f.R2,
		MinTokens: f.MinTokens, MaxTokens: f.MaxTokens})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (f *Fit) UnmarshalJSON(b []byte) error {
	var j fitJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*f = Fit{N: j.N, Intercept: fromMs(j.Intercept), PerKToken: fromMs(j.PerK), R2: j.R2,
		MinTokens: j.MinTokens, MaxTokens: j.MaxTokens}
	return nil
}

type fitJSON struct {
	N         int64   `json:"n"`
	Intercept float64 `json:"intercept_ms"`
	PerK      float64 `json:"ms_per_1k_tokens"`
	R2        float64 `json:"r2"`
	MinTokens int     `json:"min_tokens"`
	MaxTokens int     `json:"max_tokens"`
}

// regression accumulates a simple linear regression in constant memory with
// Welford's updates, which stay accurate where naive sums of squares cancel.
type regression struct {
	n             int64
	meanX, meanY  float64
	sxx, syy, sxy float64 // co-moments
	minX, maxX    float64
}

func (r *regression) add(x, y float64) {
	if r.n == 0 || x < r.minX {
		r.minX = x
	}
	if r.n == 0 || x > r.maxX {
		r.maxX = x
	}
	r.n++
	dx := x - r.meanX
	r.meanX += dx / float64(r.n)
	dy := y - r.meanY
	r.meanY += dy / float64(r.n)
	r.sxx += dx * (x - r.meanX)
	r.syy += dy * (y - r.meanY)
	r.sxy += dx * (y - r.meanY)
}

func (r *regression) merge(o regression) {
	if o.n == 0 {
		return
	}
	if r.n == 0 {
		*r = o
		return
	}
	r.minX, r.maxX = min(r.minX, o.minX), max(r.maxX, o.maxX)
	n := float64(r.n + o.n)
	dx, dy := o.meanX-r.meanX, o.meanY-r.meanY
	f := float64(r.n) * float64(o.n) / n
	r.sxx += o.sxx + dx*dx*f
	r.syy += o.syy + dy*dy*f
	r.sxy += o.sxy + dx*dy*f
	r.meanX += dx * float64(o.n) / n
	r.meanY += dy * float64(o.n) / n
	r.n += o.n
}

// fit returns the line for x in tokens and y in seconds. With no spread in
// x there is no slope to fit, and only N is set.
func (r *regression) fit() Fit {
	if r.n < 2 || r.sxx <= 0 {
		return Fit{N: r.n, MinTokens: int(r.minX), MaxTokens: int(r.maxX)}
	}
	slope := r.sxy / r.sxx // seconds per token
	f := Fit{
		N:         r.n,
		Intercept: seconds(r.meanY - slope*r.meanX),
		PerKToken: seconds(slope * 1000),
		R2:        1,
		MinTokens: int(r.minX),
		MaxTokens: int(r.maxX),
	}
	if r.syy > 0 {
		f.R2 = math.Min(1, r.sxy*r.sxy/(r.sxx*r.syy))
	}
	return f
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

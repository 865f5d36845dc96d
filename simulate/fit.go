package simulate

import (
	"math"
	"time"
)

// Metric names a figure an Observation measured.
type Metric string

// The figures an Observation can hold.
const (
	MetricTTFT         Metric = "ttft_ms"       // mean TTFT in ms
	MetricTPOT         Metric = "tpot_ms"       // mean TPOT in ms
	MetricE2E          Metric = "e2e_ms"        // mean E2E in ms
	MetricDecodeTPS    Metric = "decode_tps"    // one stream's 1 / TPOT
	MetricAggregateTPS Metric = "aggregate_tps" // output tokens/s over all streams
	MetricPrefillTPS   Metric = "prefill_tps"   // prompt tokens / prefill time
	MetricMsPerToken   Metric = "ms_per_token"  // E2E / output tokens, in ms
)

// Observation is one measured figure of a deployment under a scenario.
type Observation struct {
	// Scenario is the load the figure was measured under.
	Scenario Scenario
	// Metric names the figure.
	Metric Metric
	// Value is the figure, in the unit its Metric names (ms or tokens/s).
	Value float64
}

// figure reads m from a prediction.
func figure(p Prediction, m Metric) float64 {
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	switch m {
	case MetricTTFT:
		return ms(p.TTFT)
	case MetricTPOT:
		return ms(p.TPOT)
	case MetricE2E:
		return ms(p.E2E)
	case MetricDecodeTPS:
		return p.TPS
	case MetricAggregateTPS:
		return p.AggregateTPS
	case MetricPrefillTPS:
		if p.Prefill <= 0 {
			return 0
		}
		return float64(p.Scenario.PromptTokens) / p.Prefill.Seconds()
	case MetricMsPerToken:
		return ms(p.E2E) / float64(max(p.Scenario.OutputTokens, 1))
	}
	return math.NaN()
}

// Figure predicts the observation's metric for d by simulating its
// scenario; NaN for an unknown metric.
func (o Observation) Figure(d Deployment) (float64, error) {
	p, err := Predict(d, o.Scenario)
	if err != nil {
		return 0, err
	}
	return figure(p, o.Metric), nil
}

// quick estimates the observation's metric for a resolved deployment in
// closed form from the step cost: prefill in chunks, then identical decode
// steps at the scenario's batch with the context halfway through the
// output. It agrees with Predict to a few percent and takes microseconds,
// which is what a fit needs.
func (o Observation) quick(d Deployment) float64 {
	c := newCostModel(d)
	s := o.Scenario
	p, out, n := orI(s.PromptTokens, 1000), orI(s.OutputTokens, 256), orI(s.Concurrency, 1)
	batch := min(n, d.MaxRunning)
	// Prefill: requests one after another, each in chunks.
	var one float64
	for done := 0; done < p; {
		k := min(p-done, d.MaxBatchedTokens)
		one += c.step(Load{PrefillTokens: k, PrefillPairs: prefillPairs(k, done), PrefillContext: int64(done)}).Time.Seconds()
		done += k
	}
	perStep := max(d.MaxBatchedTokens/p, 1)
	steps := (n + perStep - 1) / perStep
	prefillAll := one
	if perStep > 1 && n > 1 {
		k := min(perStep, n) * p
		prefillAll = c.step(Load{PrefillTokens: k, PrefillPairs: float64(min(perStep, n)) * prefillPairs(p, 0)}).Time.Seconds()
		prefillAll *= float64(steps)
	} else {
		prefillAll *= float64(n)
	}
	ttft := one
	if n > 1 {
		ttft = prefillAll * float64(steps+1) / float64(2*steps)
	}
	dec := c.step(Load{DecodeSeqs: batch, DecodeTokens: batch * (1 + d.Speculation.DraftTokens), DecodeContext: int64(batch) * int64(p+out/2)})
	if d.FirstTokenFromDecode {
		// The first token waits for the decode step after the prefill.
		ttft += c.step(Load{DecodeSeqs: batch, DecodeTokens: batch, DecodeContext: int64(batch) * int64(p)}).Time.Seconds()
	}
	tpot := dec.Time.Seconds() / d.Speculation.TokensPerStep()
	// A request's decode shares its steps with the prefill of the requests
	// admitted after it: on average (steps−1)/(2·steps) of all prefill.
	mean := tpot
	if n > 1 && out > 1 {
		mean += prefillAll * float64(steps-1) / float64(2*steps) / float64(out-1)
	}
	e2e := ttft + float64(out-1)*mean
	switch o.Metric {
	case MetricTTFT:
		return ttft * 1e3
	case MetricTPOT:
		return mean * 1e3
	case MetricE2E:
		return e2e * 1e3
	case MetricDecodeTPS:
		return 1 / mean
	case MetricAggregateTPS:
		return float64(n*out) / (prefillAll + float64(out-1)*tpot)
	case MetricPrefillTPS:
		return float64(p) / one
	case MetricMsPerToken:
		return e2e * 1e3 / float64(out)
	}
	return math.NaN()
}

// minimizeLog minimises f over x within [lo, hi] by cyclic coordinate
// descent on log x (golden-section search along each coordinate). It is
// slow in high dimensions but needs no gradient and never leaves the
// bounds; the fits here have at most a few dozen parameters.
func minimizeLog(x, lo, hi []float64, f func([]float64) float64, sweeps int) float64 {
	best := f(x)
	const phi = 0.6180339887498949
	for range sweeps {
		before := best
		for i := range x {
			a, b := math.Log(lo[i]), math.Log(hi[i])
			cur := math.Log(x[i])
			// Search a bracket around the current value first.
			a, b = max(a, cur-1.5), min(b, cur+1.5)
			at := func(v float64) float64 {
				old := x[i]
				x[i] = math.Exp(v)
				r := f(x)
				x[i] = old
				return r
			}
			c, d := b-phi*(b-a), a+phi*(b-a)
			fc, fd := at(c), at(d)
			for range 30 {
				if fc < fd {
					b, d, fd = d, c, fc
					c = b - phi*(b-a)
					fc = at(c)
				} else {
					a, c, fc = c, d, fd
					d = a + phi*(b-a)
					fd = at(d)
				}
			}
			if v := min(fc, fd); v < best {
				best = v
				if fc < fd {
					x[i] = math.Exp(c)
				} else {
					x[i] = math.Exp(d)
				}
			}
		}
		if before-best < 1e-9*max(before, 1e-12) {
			break
		}
	}
	return best
}

// logErr is log(predicted / measured), or a large penalty when the
// prediction is impossible.
func logErr(pred, measured float64) float64 {
	if !(pred > 0) || !(measured > 0) || math.IsInf(pred, 0) {
		return 5
	}
	return math.Log(pred / measured)
}

// classSample is one published measurement: a deployment with no
// efficiency overrides and what was measured.
type classSample struct {
	d   Deployment
	obs Observation
}

// fitClasses fits class parameters to samples starting from p, minimising
// the squared log error plus lambda times the squared log distance of each
// parameter from its prior.
func fitClasses(samples []classSample, p classParams, lambda float64) classParams {
	prior := priorParams
	pv, priorV := p.params(), prior.params()
	x, lo, hi := make([]float64, len(pv)), make([]float64, len(pv)), make([]float64, len(pv))
	for i, q := range pv {
		lo[i], hi[i] = q.lo, q.hi
		x[i] = min(max(*q.v, lo[i]), hi[i])
	}
	loss := func(x []float64) float64 {
		q := p
		for i, v := range q.params() {
			*v.v = x[i]
		}
		var sum float64
		for _, s := range samples {
			d, err := s.d.resolvedWith(q)
			if err != nil {
				sum += 25
				continue
			}
			e := logErr(s.obs.quick(d), s.obs.Value)
			sum += e * e
		}
		for i := range x {
			l := math.Log(x[i] / *priorV[i].v)
			sum += lambda * l * l
		}
		return sum
	}
	minimizeLog(x, lo, hi, loss, 6)
	for i, v := range p.params() {
		*v.v = x[i]
	}
	return p
}

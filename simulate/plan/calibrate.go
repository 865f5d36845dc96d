package plan

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/tokenpace/tokenpace/simulate"
	"github.com/tokenpace/tokenpace/simulate/internal/sigfig"
)

// ErrIllPosed is returned, wrapped in a *CalibrationError, when the
// observations cannot determine the constants a calibration fits.
var ErrIllPosed = errors.New("plan: calibration is not well-posed")

// CalibrationError says why observations cannot calibrate a deployment.
// It unwraps to ErrIllPosed.
type CalibrationError struct {
	// Reason says what is missing, e.g. "bandwidth share and step overhead
	// are confounded: add a run at another concurrency".
	Reason string
}

// Error returns the reason prefixed with the package name.
func (e *CalibrationError) Error() string {
	return "plan: calibration is not well-posed: " + e.Reason
}

// Unwrap returns ErrIllPosed.
func (e *CalibrationError) Unwrap() error { return ErrIllPosed }

// Residual is one observation beside what the calibrated deployment
// predicts for it.
type Residual struct {
	simulate.Observation
	// Predicted is the calibrated deployment's figure (by simulate.Predict).
	Predicted float64
	// Error is (Predicted − Value) / Value.
	Error float64
}

// Calibration is a deployment whose free constants were fitted to
// observations of the real endpoint.
type Calibration struct {
	// Deployment is the resolved deployment with MBU, MFU and
	// StepOverhead fitted.
	Deployment simulate.Deployment
	// Fitted names the constants fitted: MBU, MFU, StepOverhead.
	Fitted []string
	// Residuals holds each observation and the fitted prediction.
	Residuals []Residual
	// Conditioning is the ratio of the smallest to the largest eigenvalue
	// of JᵀJ (J: the log-error Jacobian in the log constants): near zero
	// when some combination of constants is barely determined.
	Conditioning float64
	// Bands holds each fitted constant with its uncertainty band, in the
	// order of Fitted.
	Bands []ConstantBand
	// Confounded names the fitted constants whose band is wider than
	// ±25 %: the runs do not tell them apart from the others.
	Confounded []string
	// Spread is how far apart predictions of TTFT and TPOT at other loads
	// (one stream, 32 streams, a long prompt) could fall for constants
	// anywhere in the bands along their least determined combination: the
	// largest relative difference. Small when the fit is well determined.
	Spread float64
}

// ConstantBand is a fitted constant and the range the observations allow
// it: the fit moved by two standard errors (log scale) either way, with the
// measurement noise taken as the residuals' spread and at least 1 %, and
// kept within what the constant can be (a share at most 1).
type ConstantBand struct {
	// Name is the constant: MBU, MFU or StepOverhead.
	Name string
	// Value, Low and High are the fit and its band (StepOverhead in
	// seconds).
	Value, Low, High float64
}

// String is "MBU 0.550 (0.541 – 0.559)" or "StepOverhead 3.00 ms (2.91 –
// 3.09 ms)".
func (b ConstantBand) String() string {
	if b.Name == "StepOverhead" {
		return fmt.Sprintf("%s %.2f ms (%.2f – %.2f ms)", b.Name, 1e3*b.Value, 1e3*b.Low, 1e3*b.High)
	}
	return fmt.Sprintf("%s %.3f (%.3f – %.3f)", b.Name, b.Value, b.Low, b.High)
}

// calibrationNoise is the least relative noise assumed of a measured
// figure (a benchmark's mean over a few requests).
const calibrationNoise = 0.01

// Misfit is the relative miss of a fit on one of its own runs past which
// the endpoint is taken not to behave as the model does: beyond a noisy
// server's run-to-run spread.
const Misfit = 0.2

// Worst returns the largest relative miss of the fit on its own runs.
func (c Calibration) Worst() float64 {
	w, _ := worstMiss(c.Residuals)
	return w
}

// residualsOf returns d's figures on obs beside the measured ones.
func residualsOf(obs []simulate.Observation, d simulate.Deployment, figure func(simulate.Observation, simulate.Deployment) float64) []Residual {
	rs := make([]Residual, 0, len(obs))
	for _, o := range obs {
		p := figure(o, d)
		rs = append(rs, Residual{Observation: o, Predicted: p, Error: (p - o.Value) / o.Value})
	}
	return rs
}

// worstMiss returns the largest relative miss among rs, and the observation
// missed most.
func worstMiss(rs []Residual) (float64, simulate.Observation) {
	var w float64
	var at simulate.Observation
	for _, r := range rs {
		if e := math.Abs(r.Error); e > w {
			w, at = e, r.Observation
		}
	}
	return w, at
}

// calibrateConditioning is the conditioning below which a fit is refused as
// ill-posed: a direction of the constants that moves the predictions
// by less than 1/1000 of the best-determined one.
const calibrateConditioning = 1e-6

// Calibrate fits the free constants of d — bandwidth share (MBU), tensor
// share (MFU) and the fixed time per step — to observations of the real
// endpoint, keeping every other figure (catalog, class defaults) as d
// resolves them. Over several GPUs the fixed time per step holds both the
// host overhead and the all-reduce latencies: at one GPU count no run can
// tell them apart, so StepOverhead takes their sum above the class
// all-reduce latency, which stays as it is (its bytes over the link still
// scale with the tokens of a step). Observations at
// different prompt lengths and concurrencies make the fit well-posed; when
// they do not (fewer figures than constants, or two constants that move the
// figures the same way), Calibrate returns a *CalibrationError naming the
// confounded constants and what run to add.
func Calibrate(d simulate.Deployment, obs []simulate.Observation) (Calibration, error) {
	base, err := d.Resolved()
	if err != nil {
		return Calibration{}, err
	}
	names := []string{"MBU", "MFU", "StepOverhead"}
	x := []float64{base.MBU, base.MFU, max(base.StepOverhead.Seconds(), 1e-5)}
	lo := []float64{0.02, 0.02, 1e-6}
	hi := []float64{1, 1, 1}
	if err := checkObservations(obs, names); err != nil {
		return Calibration{}, err
	}
	with := func(x []float64) simulate.Deployment {
		c := base
		c.MBU, c.MFU, c.StepOverhead = x[0], x[1], max(seconds(x[2]), 1)
		return c
	}
	exact := func(o simulate.Observation, d simulate.Deployment) float64 {
		v, err := o.Figure(d)
		if err != nil {
			return math.NaN()
		}
		return v
	}
	residuals := func(predict func(simulate.Observation, simulate.Deployment) float64) func([]float64) []float64 {
		return func(x []float64) []float64 {
			d := with(x)
			r := make([]float64, len(obs))
			for i, o := range obs {
				r[i] = logErr(predict(o, d), o.Value)
			}
			return r
		}
	}
	sumSq := func(x []float64) float64 {
		var s float64
		for _, e := range residuals(exact)(x) {
			s += e * e
		}
		return s
	}
	// The simulated figures step with the engine's discrete steps, so the
	// sum of squares has shallow local minima along the valley where the
	// bandwidth share and the step overhead trade off: start from the
	// class defaults and from either end of that valley, keep the best.
	start := append([]float64(nil), x...)
	best, bestSq := x, math.Inf(1)
	for _, f := range [][2]float64{{1, 1}, {0.7, 3}, {1.3, 0.3}} {
		y := append([]float64(nil), start...)
		y[0], y[2] = y[0]*f[0], y[2]*f[1]
		leastSquaresLog(y, lo, hi, residuals(exact), 50)
		if v := sumSq(y); v < bestSq {
			best, bestSq = y, v
		}
	}
	x = best
	cond, weak := conditioning(x, lo, hi, residuals(exact))
	fitted := residualsOf(obs, with(x), exact)
	if miss, at := worstMiss(fitted); cond < calibrateConditioning && miss > Misfit {
		// The constants ran to their bounds chasing runs that no
		// deployment of this shape gives: more runs would not help.
		return Calibration{}, &CalibrationError{Reason: fmt.Sprintf("the runs do not follow the model: its best fit misses them by up to %.0f%% (%s at %d prompt tokens, %d concurrent): "+
			"the endpoint caches, queues or batches otherwise than the deployment says (check its prefix cache, --max-running and --kv-tokens)",
			100*miss, at.Metric, at.Scenario.PromptTokens, at.Scenario.Concurrency)}
	}
	if cond < calibrateConditioning {
		var which []string
		for i, w := range weak {
			if math.Abs(w) > 0.3 {
				which = append(which, names[i])
			}
		}
		return Calibration{}, &CalibrationError{Reason: fmt.Sprintf("%s are confounded by these runs (conditioning %.2g): add runs at other prompt lengths and concurrencies",
			strings.Join(which, " and "), cond)}
	}
	out := Calibration{Deployment: with(x), Fitted: names, Conditioning: cond}
	out.Bands, out.Confounded, out.Spread = bands(x, lo, hi, names, residuals(exact), func(x []float64) simulate.Deployment { return with(x) }, exact)
	out.Residuals = fitted
	return out, nil
}

// checkObservations returns an error when an observation has an unknown
// metric or a value that is not positive and finite, or when obs hold
// fewer distinct figures (metric and scenario) than the constants names.
func checkObservations(obs []simulate.Observation, names []string) error {
	for i, o := range obs {
		if !(o.Value > 0) || math.IsInf(o.Value, 0) || !known(o.Metric) {
			return &simulate.InvalidError{Field: fmt.Sprintf("observation %d", i+1), Value: o, Reason: "needs a known metric and a positive, finite value"}
		}
	}
	distinct := map[simulate.Observation]bool{}
	for _, o := range obs {
		o.Value = 0
		distinct[o] = true
	}
	if len(distinct) < len(names) {
		return &CalibrationError{Reason: fmt.Sprintf("%d distinct figures for %d constants (%s): add runs at other prompt lengths and concurrencies",
			len(distinct), len(names), strings.Join(names, ", "))}
	}
	return nil
}

// bands returns each constant's band at the fit x of the residual
// function r, the constants whose band passes ±10 %, and the spread of
// predictions at other loads along the least determined direction (kept
// within lo and hi).
func bands(x, lo, hi []float64, names []string, r func([]float64) []float64, with func([]float64) simulate.Deployment, figure func(simulate.Observation, simulate.Deployment) float64) ([]ConstantBand, []string, float64) {
	res := r(x)
	var ss float64
	for _, e := range res {
		ss += e * e
	}
	dof := max(len(res)-len(x), 1)
	sigma := max(math.Sqrt(ss/float64(dof)), calibrationNoise)
	jtj := normalMatrix(x, lo, hi, r)
	n := len(x)
	// Regularise an exactly singular matrix so that its inverse is large
	// but finite: the band of an undetermined constant is then wide.
	var trace float64
	for i := range n {
		trace += jtj[i][i]
	}
	for i := range n {
		jtj[i][i] += 1e-12 * max(trace, 1e-12)
	}
	var out []ConstantBand
	var confounded []string
	for i := range n {
		unit := make([]float64, n)
		unit[i] = 1
		v := solve(jtj, unit)[i]
		half := 2 * sigma * math.Sqrt(max(v, 0))
		half = min(half, 5) // beyond e^5 the band says nothing more
		// A share's band stops at 1 (and every band at its constant's
		// bounds): no deployment reads its memory faster than its bandwidth.
		out = append(out, ConstantBand{Name: names[i], Value: x[i], Low: max(x[i]*math.Exp(-half), lo[i]), High: min(x[i]*math.Exp(half), hi[i])})
		if half > math.Log(1.25) {
			confounded = append(confounded, names[i])
		}
	}
	vals, vecs := jacobiEigen(jtj)
	weak := 0
	for i := range vals {
		if vals[i] < vals[weak] {
			weak = i
		}
	}
	// Two standard errors along the weakest direction, at most a factor e.
	step := min(2*sigma/math.Sqrt(max(vals[weak], 1e-300)), 1)
	probes := []simulate.Observation{
		{Scenario: simulate.Scenario{PromptTokens: 128, OutputTokens: 32, Concurrency: 1}, Metric: simulate.MetricTPOT},
		{Scenario: simulate.Scenario{PromptTokens: 2048, OutputTokens: 32, Concurrency: 32}, Metric: simulate.MetricTPOT},
		{Scenario: simulate.Scenario{PromptTokens: 4096, OutputTokens: 2, Concurrency: 1}, Metric: simulate.MetricTTFT},
	}
	var spread float64
	up, down := append([]float64(nil), x...), append([]float64(nil), x...)
	for i := range x {
		up[i] = min(max(x[i]*math.Exp(step*vecs[weak][i]), lo[i]), hi[i])
		down[i] = min(max(x[i]*math.Exp(-step*vecs[weak][i]), lo[i]), hi[i])
	}
	for _, o := range probes {
		a, b := figure(o, with(up)), figure(o, with(down))
		if a > 0 && b > 0 {
			spread = max(spread, math.Abs(a-b)/min(a, b))
		}
	}
	return out, confounded, spread
}

// normalMatrix is JᵀJ for the residual function r at x, J by differences
// in log x kept within lo and hi: central inside them, one-sided where x
// sits on a bound (MBU at 1), since past it the deployment is no
// deployment and r has no value.
func normalMatrix(x, lo, hi []float64, r func([]float64) []float64) [][]float64 {
	n := len(x)
	var cols [][]float64
	for i := range x {
		const h = 0.01
		up, down := append([]float64(nil), x...), append([]float64(nil), x...)
		up[i] = min(x[i]*math.Exp(h), hi[i])
		down[i] = max(x[i]*math.Exp(-h), lo[i])
		ru, rd := r(up), r(down)
		span := math.Log(up[i] / down[i])
		col := make([]float64, len(ru))
		for k := range ru {
			col[k] = (ru[k] - rd[k]) / span
		}
		cols = append(cols, col)
	}
	a := make([][]float64, n)
	for i := range a {
		a[i] = make([]float64, n)
		for j := range a[i] {
			for k := range cols[i] {
				a[i][j] += cols[i][k] * cols[j][k]
			}
		}
	}
	return a
}

// conditioning returns the ratio of the smallest to the largest eigenvalue
// of JᵀJ for the residual function r at x (J as normalMatrix takes it,
// within low and high), and the eigenvector of the smallest: the barely determined direction.
func conditioning(x, low, high []float64, r func([]float64) []float64) (float64, []float64) {
	a := normalMatrix(x, low, high, r)
	vals, vecs := jacobiEigen(a)
	lo, hi := 0, 0
	for i := range vals {
		if vals[i] < vals[lo] {
			lo = i
		}
		if vals[i] > vals[hi] {
			hi = i
		}
	}
	if !(vals[hi] > 0) {
		return 0, vecs[lo]
	}
	return max(vals[lo], 0) / vals[hi], vecs[lo]
}

// jacobiEigen returns the eigenvalues and eigenvectors of the small
// symmetric matrix a by cyclic Jacobi rotations.
func jacobiEigen(a [][]float64) ([]float64, [][]float64) {
	n := len(a)
	m := make([][]float64, n)
	v := make([][]float64, n)
	for i := range m {
		m[i] = append([]float64(nil), a[i]...)
		v[i] = make([]float64, n)
		v[i][i] = 1
	}
	for range 100 {
		var off float64
		for p := range n {
			for q := p + 1; q < n; q++ {
				off += m[p][q] * m[p][q]
			}
		}
		if off < 1e-30 {
			break
		}
		for p := range n {
			for q := p + 1; q < n; q++ {
				if m[p][q] == 0 {
					continue
				}
				theta := (m[q][q] - m[p][p]) / (2 * m[p][q])
				t := math.Copysign(1, theta) / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				c := 1 / math.Sqrt(t*t+1)
				s := t * c
				for k := range n {
					mkp, mkq := m[k][p], m[k][q]
					m[k][p], m[k][q] = c*mkp-s*mkq, s*mkp+c*mkq
				}
				for k := range n {
					mpk, mqk := m[p][k], m[q][k]
					m[p][k], m[q][k] = c*mpk-s*mqk, s*mpk+c*mqk
				}
				for k := range n {
					vkp, vkq := v[k][p], v[k][q]
					v[k][p], v[k][q] = c*vkp-s*vkq, s*vkp+c*vkq
				}
			}
		}
	}
	vals := make([]float64, n)
	vecs := make([][]float64, n)
	for i := range n {
		vals[i] = m[i][i]
		vecs[i] = make([]float64, n)
		for k := range n {
			vecs[i][k] = v[k][i]
		}
	}
	return vals, vecs
}

// String is one line per residual: "ttft_ms at 512 prompt, 64 output, 1
// concurrent: measured 41.2, fitted 41.0 (-0.5%)".
func (r Residual) String() string {
	s := r.Scenario
	return fmt.Sprintf("%s at %d prompt, %d output, %d concurrent: measured %s, fitted %s (%+.1f%%)",
		r.Metric, s.PromptTokens, s.OutputTokens, max(s.Concurrency, 1), sigfig.Num(r.Value), sigfig.Num(r.Predicted), 100*r.Error)
}

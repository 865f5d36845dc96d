package simulate

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// ErrIllPosed is returned, wrapped in a *CalibrationError, when the
// observations cannot determine the constants a calibration fits.
var ErrIllPosed = errors.New("simulate: calibration is not well-posed")

// CalibrationError says why observations cannot calibrate a deployment.
// It unwraps to ErrIllPosed.
type CalibrationError struct {
	// Reason says what is missing, e.g. "bandwidth share and step overhead
	// are confounded: add a run at another concurrency".
	Reason string
}

// Error returns the reason prefixed with the package name.
func (e *CalibrationError) Error() string {
	return "simulate: calibration is not well-posed: " + e.Reason
}

// Unwrap returns ErrIllPosed.
func (e *CalibrationError) Unwrap() error { return ErrIllPosed }

// Residual is one observation beside what the calibrated deployment
// predicts for it.
type Residual struct {
	Observation
	// Predicted is the calibrated deployment's figure (by Predict).
	Predicted float64
	// Error is (Predicted − Value) / Value.
	Error float64
}

// Calibration is a deployment whose free constants were fitted to
// observations of the real endpoint.
type Calibration struct {
	// Deployment is the resolved deployment with MBU, MFU and
	// StepOverhead fitted.
	Deployment Deployment
	// Fitted names the constants fitted: MBU, MFU, StepOverhead.
	Fitted []string
	// Residuals holds each observation and the fitted prediction.
	Residuals []Residual
	// Conditioning is the ratio of the smallest to the largest eigenvalue
	// of JᵀJ (J: the log-error Jacobian in the log constants): near zero
	// when some combination of constants is barely determined.
	Conditioning float64
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
func Calibrate(d Deployment, obs []Observation) (Calibration, error) {
	base, err := d.Resolved()
	if err != nil {
		return Calibration{}, err
	}
	for i, o := range obs {
		if !(o.Value > 0) || math.IsInf(o.Value, 0) || math.IsNaN(figure(Prediction{}, o.Metric)) {
			return Calibration{}, &InvalidError{Field: fmt.Sprintf("observation %d", i+1), Value: o, Reason: "needs a known metric and a positive, finite value"}
		}
	}
	names := []string{"MBU", "MFU", "StepOverhead"}
	x := []float64{base.MBU, base.MFU, max(base.StepOverhead.Seconds(), 1e-5)}
	lo := []float64{0.02, 0.02, 1e-6}
	hi := []float64{1, 1, 1}
	distinct := map[Observation]bool{}
	for _, o := range obs {
		o.Value = 0
		distinct[o] = true
	}
	if len(distinct) < len(names) {
		return Calibration{}, &CalibrationError{Reason: fmt.Sprintf("%d distinct figures for %d constants (%s): add runs at other prompt lengths and concurrencies",
			len(distinct), len(names), strings.Join(names, ", "))}
	}
	with := func(x []float64) Deployment {
		c := base
		c.MBU, c.MFU, c.StepOverhead = x[0], x[1], max(seconds(x[2]), 1)
		return c
	}
	exact := func(o Observation, d Deployment) float64 {
		v, err := o.Figure(d)
		if err != nil {
			return math.NaN()
		}
		return v
	}
	residuals := func(predict func(Observation, Deployment) float64) func([]float64) []float64 {
		return func(x []float64) []float64 {
			d := with(x)
			r := make([]float64, len(obs))
			for i, o := range obs {
				r[i] = logErr(predict(o, d), o.Value)
			}
			return r
		}
	}
	leastSquaresLog(x, lo, hi, residuals(exact), 50)
	cond, weak := conditioning(x, residuals(exact))
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
	for _, o := range obs {
		p := exact(o, out.Deployment)
		out.Residuals = append(out.Residuals, Residual{Observation: o, Predicted: p, Error: (p - o.Value) / o.Value})
	}
	return out, nil
}

// conditioning returns the ratio of the smallest to the largest eigenvalue
// of JᵀJ for the residual function r at x (J by central differences in log
// x), and the eigenvector of the smallest: the barely determined direction.
func conditioning(x []float64, r func([]float64) []float64) (float64, []float64) {
	n := len(x)
	var cols [][]float64
	for i := range x {
		const h = 0.01
		up, down := append([]float64(nil), x...), append([]float64(nil), x...)
		up[i] *= math.Exp(h)
		down[i] *= math.Exp(-h)
		ru, rd := r(up), r(down)
		col := make([]float64, len(ru))
		for k := range ru {
			col[k] = (ru[k] - rd[k]) / (2 * h)
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
		r.Metric, s.PromptTokens, s.OutputTokens, max(s.Concurrency, 1), num(r.Value), num(r.Predicted), 100*r.Error)
}

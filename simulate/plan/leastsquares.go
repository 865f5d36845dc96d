package plan

import "math"

// logErr is log(predicted / measured), or a large penalty when the
// prediction is impossible.
func logErr(pred, measured float64) float64 {
	if !(pred > 0) || !(measured > 0) || math.IsInf(pred, 0) {
		return 5
	}
	return math.Log(pred / measured)
}

// leastSquaresLog minimises Σ r(x)² over x within [lo, hi] by
// Levenberg–Marquardt steps in log x, with a central-difference Jacobian
// over ±2 % (wide enough to step over the small jumps of figures taken
// from a discrete-event simulation).
// For a handful of parameters it converges in tens of residual
// evaluations where coordinate descent would crawl along a valley.
func leastSquaresLog(x, lo, hi []float64, r func([]float64) []float64, iters int) {
	n := len(x)
	sq := func(v []float64) float64 {
		var s float64
		for _, e := range v {
			s += e * e
		}
		return s
	}
	clamp := func(v []float64) {
		for i := range v {
			v[i] = min(max(v[i], lo[i]), hi[i])
		}
	}
	clamp(x)
	res := r(x)
	cur := sq(res)
	mu := 1e-3
	for range iters {
		const h = 0.02
		cols := make([][]float64, n)
		for i := range x {
			up, down := append([]float64(nil), x...), append([]float64(nil), x...)
			up[i] *= math.Exp(h)
			down[i] *= math.Exp(-h)
			ru, rd := r(up), r(down)
			cols[i] = make([]float64, len(res))
			for k := range res {
				cols[i][k] = (ru[k] - rd[k]) / (2 * h)
			}
		}
		a := make([][]float64, n)
		g := make([]float64, n)
		for i := range a {
			a[i] = make([]float64, n)
			for j := range a[i] {
				for k := range res {
					a[i][j] += cols[i][k] * cols[j][k]
				}
			}
			for k := range res {
				g[i] -= cols[i][k] * res[k]
			}
		}
		improved := false
		for range 10 {
			m := make([][]float64, n)
			for i := range m {
				m[i] = append([]float64(nil), a[i]...)
				m[i][i] += mu * max(a[i][i], 1e-12)
			}
			step := solve(m, g)
			y := append([]float64(nil), x...)
			for i := range y {
				y[i] *= math.Exp(max(min(step[i], 2), -2))
			}
			clamp(y)
			ry := r(y)
			if v := sq(ry); v < cur {
				copy(x, y)
				res, cur = ry, v
				mu = max(mu/3, 1e-9)
				improved = true
				break
			}
			mu *= 4
		}
		if !improved || cur < 1e-14 {
			return
		}
	}
}

// solve returns m⁻¹b for a small matrix by Gaussian elimination with
// partial pivoting; a singular pivot yields a zero component.
func solve(m [][]float64, b []float64) []float64 {
	n := len(b)
	a := make([][]float64, n)
	for i := range a {
		a[i] = append(append([]float64(nil), m[i]...), b[i])
	}
	for c := range n {
		p := c
		for i := c + 1; i < n; i++ {
			if math.Abs(a[i][c]) > math.Abs(a[p][c]) {
				p = i
			}
		}
		a[c], a[p] = a[p], a[c]
		if math.Abs(a[c][c]) < 1e-300 {
			continue
		}
		for i := c + 1; i < n; i++ {
			f := a[i][c] / a[c][c]
			for j := c; j <= n; j++ {
				a[i][j] -= f * a[c][j]
			}
		}
	}
	x := make([]float64, n)
	for i := n - 1; i >= 0; i-- {
		if math.Abs(a[i][i]) < 1e-300 {
			continue
		}
		s := a[i][n]
		for j := i + 1; j < n; j++ {
			s -= a[i][j] * x[j]
		}
		x[i] = s / a[i][i]
	}
	return x
}

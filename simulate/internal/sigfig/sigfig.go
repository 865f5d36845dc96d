// Package sigfig formats the figures that the simulator and its planning
// layer print: three significant digits, no exponent for everyday
// magnitudes, so that a prediction, a plan and a calibration read alike.
package sigfig

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// Num formats v with three significant digits, no exponent for everyday
// magnitudes: 35, 16.1, 0.0335, 141.
func Num(v float64) string {
	if v == 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	digits := 3 - int(math.Floor(math.Log10(math.Abs(v)))) - 1
	if digits < 0 {
		return strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	}
	out := strconv.FormatFloat(v, 'f', digits, 64)
	if strings.Contains(out, ".") {
		out = strings.TrimRight(strings.TrimRight(out, "0"), ".")
	}
	return out
}

// Ms formats d in milliseconds with Num.
func Ms(d time.Duration) string { return Num(float64(d) / 1e6) }

package plan

import (
	"math"
	"slices"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
)

// orI is v, or def when v is zero.
func orI(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// seconds converts s seconds to a Duration, rounded to the nanosecond.
func seconds(s float64) time.Duration { return time.Duration(math.Round(s * 1e9)) }

// prefillPairs is the attention pairs of n new tokens after c cached ones
// (see simulate.Load.PrefillPairs).
func prefillPairs(n, c int) float64 {
	return float64(n)*float64(c) + float64(n)*float64(n+1)/2
}

// checkRouting reports an unknown routing as simulate.Replicated would.
func checkRouting(r simulate.Routing) error {
	if !slices.Contains(simulate.Routings(), r) {
		return &simulate.InvalidError{Field: "routing", Value: int(r), Reason: "unknown"}
	}
	return nil
}

// known reports whether an Observation's metric is one Calibrate can fit.
func known(m simulate.Metric) bool {
	switch m {
	case simulate.MetricTTFT, simulate.MetricTPOT, simulate.MetricE2E, simulate.MetricDecodeTPS,
		simulate.MetricAggregateTPS, simulate.MetricPrefillTPS, simulate.MetricMsPerToken:
		return true
	}
	return false
}

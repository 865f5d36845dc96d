package tokenpace

import "time"

// MaxChunkStamps is how many chunk arrivals a Timing keeps in Chunks.
const MaxChunkStamps = maxChunkStamps

// TTFTPercentile returns the nearest-rank q-quantile (0 < q ≤ 1) of the
// last TTFTs the Router observed at target, which a Hedge's Percentile
// reads, for the package's external tests; false when target is unknown,
// has no data yet or q is out of range.
func TTFTPercentile(r *Router, target string, q float64) (time.Duration, bool) {
	rt := r.route(target)
	if rt == nil || !(q > 0 && q <= 1) {
		return 0, false
	}
	d, n := rt.pred.Percentile(q)
	return d, n > 0
}

// RaceEnabled: the race detector is on (see race_on_test.go).
const RaceEnabled = raceEnabled

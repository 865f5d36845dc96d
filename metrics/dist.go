package metrics

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram geometry of every latency distribution the Recorder keeps:
// microsecond resolution from 1µs to one hour, three significant digits.
const (
	histLowest  = 1 // µs
	histHighest = int64(time.Hour / time.Microsecond)
	histDigits  = 3
)

// RelativeError is the largest relative error of any percentile the
// Recorder reports: its HDR histograms keep three significant decimal digits.
// Values below 1ms are also subject to the 1µs resolution; values above one
// hour are clamped to one hour.
const RelativeError = 0.001

// dist is one latency distribution: its histogram, and its largest sample
// and the sum of its samples exactly (the histogram's max is the top of
// that sample's bucket, up to RelativeError above it, and its mean that of
// the buckets' middles). Not safe for concurrent use.
type dist struct {
	h   *hdrhistogram.Histogram
	max time.Duration
	sum time.Duration
}

func newDist() *dist { return &dist{h: hdrhistogram.New(histLowest, histHighest, histDigits)} }

func (d *dist) record(v time.Duration) {
	us := min(max(v.Microseconds(), histLowest), histHighest)
	_ = d.h.RecordValue(us) // in range by construction
	v = min(max(v, 0), time.Hour)
	d.max = max(d.max, v)
	d.sum += v
}

// merge adds the samples of o.
func (d *dist) merge(o *dist) {
	d.h.Merge(o.h)
	d.max = max(d.max, o.max)
	d.sum += o.sum
}

// stats summarises the distribution: nearest-rank percentiles, as DistOf
// computes them, each the value of its rank's bucket. No percentile is
// reported above the largest sample, which a bucket's top may be.
func (d *dist) stats() Dist {
	n := d.h.TotalCount()
	if n == 0 {
		return Dist{}
	}
	at := func(permille int64) time.Duration {
		// The histogram rounds q·n to the nearest rank, one below the
		// nearest rank when its fraction is under a half (the 5th of 6
		// samples for p90); asked for k/n, it gives the k-th.
		q := 100 * float64(nearestRank(n, permille)) / float64(n)
		return min(time.Duration(d.h.ValueAtQuantile(q))*time.Microsecond, d.max)
	}
	return Dist{
		Count: n,
		Mean:  d.sum / time.Duration(n),
		P50:   at(500), P90: at(900), P95: at(950), P99: at(990), P999: at(999),
		Max: d.max,
	}
}

// nearestRank is the rank, from 1 to n, of the permille-th percentile of n
// samples by the nearest-rank method: the smallest rank at or below which
// lie permille/1000 of the samples.
func nearestRank(n, permille int64) int64 {
	return min(max((n*permille+999)/1000, 1), n)
}

// Dist summarises a latency distribution. Percentiles are nearest-rank:
// P90 is the smallest sample at or below which 90% of the samples lie (the
// largest of up to 9 samples). The Recorder's carry the RelativeError of
// the underlying histogram, none above Max; its Mean
// and Max are the samples' own (samples above an hour count as an hour).
// The zero Dist describes no samples.
type Dist struct {
	// Count is the number of samples.
	Count int64
	// Mean, percentiles and maximum of the samples.
	Mean, P50, P90, P95, P99, P999, Max time.Duration
}

// DistOf summarises d exactly: nearest-rank percentiles, no histogram. It
// sorts d in place. Use it for durations measured outside a Recorder (a
// client's own queue, a test's samples).
func DistOf(d []time.Duration) Dist {
	if len(d) == 0 {
		return Dist{}
	}
	slices.Sort(d)
	var sum time.Duration
	for _, v := range d {
		sum += v
	}
	rank := func(permille int64) time.Duration {
		return d[nearestRank(int64(len(d)), permille)-1]
	}
	return Dist{
		Count: int64(len(d)), Mean: sum / time.Duration(len(d)),
		P50: rank(500), P90: rank(900), P95: rank(950), P99: rank(990), P999: rank(999),
		Max: d[len(d)-1],
	}
}

// MarshalJSON renders d in milliseconds:
// {"count","mean","p50","p90","p95","p99","p999","max"}.
func (d Dist) MarshalJSON() ([]byte, error) {
	return json.Marshal(distJSON{
		Count: d.Count, Mean: ms(d.Mean), P50: ms(d.P50), P90: ms(d.P90),
		P95: ms(d.P95), P99: ms(d.P99), P999: ms(d.P999), Max: ms(d.Max),
	})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (d *Dist) UnmarshalJSON(b []byte) error {
	var j distJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*d = Dist{
		Count: j.Count, Mean: fromMs(j.Mean), P50: fromMs(j.P50), P90: fromMs(j.P90),
		P95: fromMs(j.P95), P99: fromMs(j.P99), P999: fromMs(j.P999), Max: fromMs(j.Max),
	}
	return nil
}

type distJSON struct {
	Count int64   `json:"count"`
	Mean  float64 `json:"mean"`
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	P95   float64 `json:"p95"`
	P99   float64 `json:"p99"`
	P999  float64 `json:"p999"`
	Max   float64 `json:"max"`
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func fromMs(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }

package metrics

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"
)

// TestRecorderPercentilesSmallSamples: the Recorder's percentiles are
// nearest-rank, as DistOf's, on a handful of requests. Six TTFTs, five of
// 100 ms and one of 900 ms: the p90 is 900 ms (five of six, 83%, are
// 100 ms); the histogram's own rounding gave the fifth sample, 100 ms, and
// so a run whose tail missed its objective read as within it.
func TestRecorderPercentilesSmallSamples(t *testing.T) {
	r := NewRecorder(WithoutDetection())
	for i := range 6 {
		ttft := 100 * time.Millisecond
		if i == 5 {
			ttft = 900 * time.Millisecond
		}
		r.Record(context.Background(), stream(t, "a", "m", epoch.Add(time.Duration(i)*time.Second), 0, ttft, 5*time.Millisecond, 2))
	}
	s := r.Snapshot()
	if want := 900 * time.Millisecond; s.TTFT.P90 != want {
		t.Errorf("Snapshot().TTFT.P90 = %v, want %v", s.TTFT.P90, want)
	}
	if want := 100 * time.Millisecond; !within(s.TTFT.P50, want) {
		t.Errorf("Snapshot().TTFT.P50 = %v, want %v", s.TTFT.P50, want)
	}
}

// TestRecorderPercentilesMatchExact: on samples of every size from 1 to
// 300, with ties (values drawn from few distinct ones) and without, every
// percentile of the Recorder's is DistOf's within RelativeError.
func TestRecorderPercentilesMatchExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 1; n <= 300; n++ {
		for _, distinct := range []int{2, 5, 1000} {
			d := newDist()
			xs := make([]time.Duration, n)
			for i := range xs {
				xs[i] = time.Duration(1+rng.IntN(distinct)) * 7 * time.Millisecond
				d.record(xs[i])
			}
			got, want := d.stats(), DistOf(xs)
			for _, p := range []struct {
				name      string
				got, want time.Duration
			}{
				{"P50", got.P50, want.P50}, {"P90", got.P90, want.P90}, {"P95", got.P95, want.P95},
				{"P99", got.P99, want.P99}, {"P999", got.P999, want.P999},
			} {
				if !within(p.got, p.want) {
					t.Fatalf("%d samples of %d values: %s = %v, want %v (DistOf)", n, distinct, p.name, p.got, p.want)
				}
			}
		}
	}
}

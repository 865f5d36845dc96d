package metrics

import (
	"testing"
	"time"
)

// The largest sample and the mean are the samples' own: the histogram
// gave its bucket's top for the maximum (12.599 ms for a largest sample of
// 12.596 ms, so that bench printed a max no request took) and the mean of
// its buckets' middles. No percentile is above the maximum.
func TestDistMaxAndMeanExact(t *testing.T) {
	d := newDist()
	for _, v := range []time.Duration{12596 * time.Microsecond, 10 * time.Millisecond, 11*time.Millisecond + 3*time.Microsecond} {
		d.record(v)
	}
	s := d.stats()
	if want := 12596 * time.Microsecond; s.Max != want {
		t.Errorf("Max = %v, want %v", s.Max, want)
	}
	if want := (12596*time.Microsecond + 10*time.Millisecond + 11*time.Millisecond + 3*time.Microsecond) / 3; s.Mean != want {
		t.Errorf("Mean = %v, want %v", s.Mean, want)
	}
	for name, p := range map[string]time.Duration{"p50": s.P50, "p99": s.P99, "p99.9": s.P999} {
		if p > s.Max {
			t.Errorf("%s = %v, above Max %v", name, p, s.Max)
		}
	}
	o := newDist()
	o.record(20 * time.Millisecond)
	d.merge(o)
	if s := d.stats(); s.Max != 20*time.Millisecond || s.Count != 4 {
		t.Errorf("merged: Max %v, Count %d; want 20ms, 4", s.Max, s.Count)
	}
}

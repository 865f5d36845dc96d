package tokenpace

import (
	"runtime/metrics"
	"sync"
	"time"
)

// starvedAfter is how late a watchdog may run after a deadline, or how
// long a goroutine may wait for a CPU during an attempt, before a breach
// is marked as the client's own (BudgetError.Late).
const starvedAfter = 20 * time.Millisecond

// schedBands is how many lengths of wait a schedReading tells apart:
// starvedAfter × 1, 2, 4, … 128 (20 ms to 2.56 s).
const schedBands = 8

// schedReading summarizes the Go runtime's scheduler latency histogram
// (runtime/metrics "/sched/latencies:seconds"): element j counts the
// waits for a CPU, since the process started, of at least
// starvedAfter<<j and less than twice that (the last band has no upper
// bound). The zero value is a process that never waited that long.
type schedReading [schedBands]uint64

// schedMetric is the runtime metric a schedReading summarizes.
const schedMetric = "/sched/latencies:seconds"

// schedSamples holds reusable samples: a read then allocates nothing.
var schedSamples = sync.Pool{New: func() any { return &[1]metrics.Sample{{Name: schedMetric}} }}

// readSched returns the scheduler latency histogram as it is now; the
// zero reading when the runtime does not provide it. It takes about half
// a microsecond.
func readSched() schedReading {
	p := schedSamples.Get().(*[1]metrics.Sample)
	defer schedSamples.Put(p)
	s := p[:]
	metrics.Read(s)
	var r schedReading
	if s[0].Value.Kind() != metrics.KindFloat64Histogram {
		return r
	}
	h := s[0].Value.Float64Histogram()
	for i, n := range h.Counts {
		// A bucket counts in the band of its lower bound: a wait
		// counts only once it surely reached the band.
		lo := h.Buckets[i]
		if n == 0 || !(lo >= starvedAfter.Seconds()) {
			continue
		}
		j := 0
		for j < schedBands-1 && lo >= (starvedAfter<<(j+1)).Seconds() {
			j++
		}
		r[j] += n
	}
	return r
}

// waitedSince returns the lower bound of the longest wait for a CPU that
// r counts and the earlier reading then does not: the longest a goroutine
// of the process was kept from running between the two readings, rounded
// down to starvedAfter<<j. Zero when no wait reached starvedAfter.
func (r schedReading) waitedSince(then schedReading) time.Duration {
	for j := schedBands - 1; j >= 0; j-- {
		if r[j] > then[j] {
			return starvedAfter << j
		}
	}
	return 0
}

package simulate

import (
	"fmt"
	"strings"
	"sync/atomic"
	"time"
)

// latenessBounds are the upper bounds of the send-lateness histogram.
var latenessBounds = []time.Duration{
	100 * time.Microsecond, 500 * time.Microsecond, time.Millisecond,
	2 * time.Millisecond, 5 * time.Millisecond, 10 * time.Millisecond,
	50 * time.Millisecond,
}

// lateness is a histogram of how late the server wrote bytes compared with
// when they were due: the simulator's own error, apart from the client's
// and the network's. It is safe for concurrent use.
type lateness struct {
	counts [8]atomic.Int64 // one per bound, then +Inf
	sum    atomic.Int64    // nanoseconds
}

// observe records a write due at due that happens now.
func (l *lateness) observe(due time.Time) {
	d := max(time.Since(due), 0)
	i := 0
	for i < len(latenessBounds) && d > latenessBounds[i] {
		i++
	}
	l.counts[i].Add(1)
	l.sum.Add(int64(d))
}

// write appends the histogram in the Prometheus text format.
func (l *lateness) write(b *strings.Builder) {
	const name = "tokenpace_sim_send_lateness_seconds"
	fmt.Fprintf(b, "# HELP %s How late the server wrote response bytes compared with their schedule.\n# TYPE %s histogram\n", name, name)
	var n int64
	for i, bound := range latenessBounds {
		n += l.counts[i].Load()
		fmt.Fprintf(b, "%s_bucket{le=\"%g\"} %d\n", name, bound.Seconds(), n)
	}
	n += l.counts[len(latenessBounds)].Load()
	fmt.Fprintf(b, "%s_bucket{le=\"+Inf\"} %d\n%s_sum %g\n%s_count %d\n", name, n, name, float64(l.sum.Load())/1e9, name, n)
}

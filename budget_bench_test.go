package tokenpace

import (
	"testing"
	"time"
)

// BenchmarkWatchdogToken measures what the budget watchdog costs per
// output token when no limit is near: the work done on the reader
// goroutine for each chunk of a stream under a budget on every phase.
//
//	go test -run '^$' -bench 'WatchdogToken|CallOutput' -benchmem .
func BenchmarkWatchdogToken(b *testing.B) {
	now := time.Now()
	w := newWatchdog(Budget{TTFT: time.Hour, Gap: time.Hour, E2E: 24 * time.Hour, MinTPS: 0.001}, now, now, func(BudgetError, bool) {})
	defer w.stop()
	at := now
	b.ReportAllocs()
	for b.Loop() {
		at = at.Add(time.Millisecond)
		w.token(at, 1)
	}
}

// BenchmarkCallOutput measures a Router call's whole per-token path: the
// output event of the answering attempt (wake-up check and watchdog).
func BenchmarkCallOutput(b *testing.B) {
	now := time.Now()
	c := &call{wake: make(chan struct{}, 1)}
	tr := &try{chained: true, a: &attempt{}}
	tr.a.w = newWatchdog(Budget{TTFT: time.Hour, Gap: time.Hour, E2E: 24 * time.Hour, MinTPS: 0.001}, now, now, func(BudgetError, bool) {})
	defer tr.a.w.stop()
	at := now
	b.ReportAllocs()
	for b.Loop() {
		at = at.Add(time.Millisecond)
		c.onOutput(tr, tr.a, at, 1)
	}
}

package fleet

import (
	"fmt"
	"sync"
	"time"
)

// outcomeLinger is how long the draining goroutine lets outcomes gather
// before it records them: under load, a batch holds the outcomes of many
// requests, one round trip for all. It delays what other replicas see by
// as much, nothing else.
const outcomeLinger = time.Millisecond

// maxOutcomeRuns bounds the outcomes waiting to be recorded: runs of
// equal outcomes of one generation merge, so it takes this many
// alternations between success and failure, all while Redis is slow to
// answer, to reach it.
const maxOutcomeRuns = 1024

// outcomeRun is n successes (n > 0) or -n failures (n < 0) of requests
// allowed in generation gen, in the order they ended.
type outcomeRun struct {
	gen int64
	n   int64
}

// outcomeQueue takes a Breaker's outcomes off the caller's path: add
// queues one and returns at once, and one goroutine, alive only while
// there is something to record, records what accumulated in batches
// (every outcomeLinger), in order. It is bounded (maxOutcomeRuns); outcomes dropped because it
// is full are reported, never lost silently. It is safe for concurrent
// use.
type outcomeQueue struct {
	record func([]outcomeRun) // records a batch, in order; called with sendMu held
	report func(error)        // reports outcomes dropped

	sendMu sync.Mutex // orders the batches
	wg     sync.WaitGroup

	mu       sync.Mutex
	runs     []outcomeRun
	dropped  int64 // since the last report
	draining bool  // a goroutine records the runs
	closed   bool
}

// add queues an outcome of generation gen. It reports false, recording
// nothing, once the queue is closed.
func (q *outcomeQueue) add(gen int64, failed bool) bool {
	d := int64(1)
	if failed {
		d = -1
	}
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return false
	}
	if n := len(q.runs); n > 0 && q.runs[n-1].gen == gen && (q.runs[n-1].n > 0) == (d > 0) {
		q.runs[n-1].n += d
	} else {
		if n == maxOutcomeRuns {
			q.dropped += abs(q.runs[0].n)
			q.runs = append(q.runs[:0], q.runs[1:]...)
		}
		q.runs = append(q.runs, outcomeRun{gen: gen, n: d})
	}
	start := !q.draining
	if start {
		q.draining = true
		q.wg.Add(1)
	}
	q.mu.Unlock()
	if start {
		go q.drain()
	}
	return true
}

// take returns the queued runs and the count dropped, and empties the
// queue. When there is nothing and stop is set, the draining goroutine
// ends.
func (q *outcomeQueue) take(stop bool) ([]outcomeRun, int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	runs, dropped := q.runs, q.dropped
	q.runs, q.dropped = nil, 0
	if stop && len(runs) == 0 && dropped == 0 {
		q.draining = false
	}
	return runs, dropped
}

// drain records batches until the queue is empty.
func (q *outcomeQueue) drain() {
	defer q.wg.Done()
	for {
		time.Sleep(outcomeLinger)
		if !q.send(true) {
			return
		}
	}
}

// send records one batch and reports whether there was one.
func (q *outcomeQueue) send(stop bool) bool {
	q.sendMu.Lock()
	defer q.sendMu.Unlock()
	runs, dropped := q.take(stop)
	if dropped > 0 {
		q.report(fmt.Errorf("fleet: %d outcomes not recorded: more than %d runs waited for Redis", dropped, maxOutcomeRuns))
	}
	if len(runs) == 0 {
		return dropped > 0
	}
	q.record(runs)
	return true
}

// flush records what is queued now, after any batch being recorded.
func (q *outcomeQueue) flush() {
	q.send(false)
}

// close records what is queued, refuses further outcomes and waits for
// the draining goroutine to end.
func (q *outcomeQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.flush()
	q.wg.Wait()
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

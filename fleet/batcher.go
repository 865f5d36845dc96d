package fleet

import (
	"sync"
	"time"
)

// batchLinger is how long a batcher's goroutine lets updates gather
// before it sends them: under load, a batch holds the updates of many
// requests, one round trip for all. It delays what other replicas see by
// as much, nothing else: little beside WithStateMaxAge (100 ms by
// default), the age of the state a Breaker decides from. It is not
// shorter because each batch is a round trip that competes with the
// callers' own for Redis and the process's cores: on a 2-core machine a
// batch every millisecond added ≈ 10 µs to each exact admission, one
// every 10 ms nothing measurable (BENCHMARKS.md, "Fleet mode: the exact
// admission path").
const batchLinger = 10 * time.Millisecond

// batcher takes updates off the caller's path: add folds one into the
// pending batch and returns at once, and one goroutine, alive only while
// there is something to send, sends what gathered every batchLinger, in
// order. A batch is a value of B whose zero value is empty; fold keeps it
// bounded. It is safe for concurrent use.
type batcher[B any] struct {
	// send sends a batch; called with sendMu held, so in order. The
	// errors it passes to its report func go to report once sendMu is
	// released, so that an error handler may flush or close the batcher's
	// owner.
	send   func(b B, report func(error))
	report func(error) // nil for none

	sendMu sync.Mutex
	wg     sync.WaitGroup

	mu       sync.Mutex
	pending  B
	full     bool // pending holds an update
	draining bool // a goroutine sends the batches
	closed   bool
	// stop is closed by close, so that the draining goroutine sends what
	// is pending at once rather than after batchLinger.
	stop chan struct{}
}

// stopped returns the channel close closes.
func (q *batcher[B]) stopped() chan struct{} {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.stop == nil {
		q.stop = make(chan struct{})
	}
	return q.stop
}

// add folds an update into the pending batch. It reports false, folding
// nothing, once the batcher is closed.
func (q *batcher[B]) add(fold func(*B)) bool {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return false
	}
	fold(&q.pending)
	q.full = true
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

// take returns the pending batch, if any, and empties it. When there is
// none and stop is set, the draining goroutine ends.
func (q *batcher[B]) take(stop bool) (B, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	b, ok := q.pending, q.full
	var zero B
	q.pending, q.full = zero, false
	if stop && !ok {
		q.draining = false
	}
	return b, ok
}

// drain sends batches until there is none. A batch that failed ends it
// before its errors are reported: the error handler may close the
// batcher, which waits for the draining goroutine; another one takes
// over what is pending meanwhile.
func (q *batcher[B]) drain() {
	stop := q.stopped()
	t := time.NewTimer(batchLinger)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-stop:
		}
		ok, errs := q.sendBatch(true)
		if !ok {
			q.wg.Done()
			return
		}
		if len(errs) > 0 {
			q.mu.Lock()
			if q.full {
				q.wg.Add(1)
				go q.drain()
			} else {
				q.draining = false
			}
			q.mu.Unlock()
			q.wg.Done()
			q.reportAll(errs)
			return
		}
		t.Reset(batchLinger)
	}
}

// sendBatch sends the pending batch and reports whether there was one,
// with the errors of its sending, not yet reported.
func (q *batcher[B]) sendBatch(stop bool) (ok bool, errs []error) {
	q.sendMu.Lock()
	defer q.sendMu.Unlock()
	b, ok := q.take(stop)
	if ok {
		q.send(b, func(err error) { errs = append(errs, err) })
	}
	return ok, errs
}

// reportAll hands errs to the error handler, if any.
func (q *batcher[B]) reportAll(errs []error) {
	if q.report != nil {
		for _, err := range errs {
			q.report(err)
		}
	}
}

// sendOne sends the pending batch, reports its errors and reports whether
// there was one.
func (q *batcher[B]) sendOne(stop bool) bool {
	ok, errs := q.sendBatch(stop)
	q.reportAll(errs)
	return ok
}

// flush sends what is pending now, after any batch being sent.
func (q *batcher[B]) flush() { q.sendOne(false) }

// close sends what is pending, refuses further updates and waits for the
// draining goroutine to end.
func (q *batcher[B]) close() {
	stop := q.stopped()
	q.mu.Lock()
	if !q.closed {
		close(stop)
	}
	q.closed = true
	q.mu.Unlock()
	q.flush()
	q.wg.Wait()
}

package fleet

import (
	"sync"
	"time"
)

// DefaultLeaseTTL is how long a Limiter made WithLease holds leased
// capacity it does not use before it gives it back.
const DefaultLeaseTTL = 100 * time.Millisecond

// lease is the capacity a Limiter made WithLease took from Redis ahead of
// its requests: per bucket, units already counted in the shared limit,
// which reservations take without a round trip. What is held expires ttl
// after the last grant and goes back to Redis, so that a quiet replica
// does not keep capacity from the others. When a reservation leaves a
// bucket below half its size, one goroutine tops the lease up in the
// background (fetch), so that reservations rarely find it empty and wait
// for Redis themselves. It is safe for concurrent use.
//
// At any time a replica holds at most the lease's size per bucket; that
// is all it can admit beyond what Redis counts in a window (units
// counted before the window, used in it), so n replicas admit at most
// limit + n × size per window.
//
// Every unit leased is, at any time, held, taken by a reservation, or
// given back: giveBack is called with mu held, in the same critical
// section that stops holding the units, so that no unit is between the
// two when close marks the lease closed; and close waits for the leasing
// round trips under way (ask … settle), whose units come back once they
// return. After close begins, ask leases nothing. (The one give-back
// outside mu is a reservation cancelled after close began: not the
// lease's units any more, and given back or reported as its owner's
// queue decides.)
type lease struct {
	ttl time.Duration
	// giveBack returns units to Redis; called with mu held (but for
	// put after close), so it must not block nor call the lease while
	// the lease is open.
	giveBack func(units []int64)
	// fetch leases extra units in one round trip and calls settle with
	// when its reply came and whether they were taken; called by the
	// refilling goroutine, nil for none. The func it returns, if not
	// nil, is called once that goroutine is done (so that it may report
	// an error to a handler that closes the lease).
	fetch func(extra []int64, settle func(at time.Time, ok bool)) (after func())
	hooks leaseHooks

	mu        sync.Mutex
	left      []int64   // units held, per bucket
	size      []int64   // units held at most, per bucket, as of the last grant
	until     time.Time // when what is held expires
	epoch     uint64    // counts expiries, so that a late cancel does not refill a newer lease
	timer     *time.Timer
	closed    bool
	refilling chan struct{} // closed when the refilling goroutine ends; nil when none runs
	asking    int           // leasing round trips under way (ask without settle)
	settled   chan struct{} // closed by the last settle while close waits; nil otherwise
}

// leaseHooks are called, when set, at points of a lease's life that
// tests interleave with close: roundTrip when a leasing round trip
// returned, before it settles; closeWaits when close waits for round
// trips under way (with mu held); expired after an expired lease was
// given back.
type leaseHooks struct{ roundTrip, closeWaits, expired func() }

func newLease(buckets int, ttl time.Duration, giveBack func([]int64), fetch func([]int64, func(time.Time, bool)) func()) *lease {
	return &lease{ttl: ttl, giveBack: giveBack, fetch: fetch, left: make([]int64, buckets)}
}

// take takes costs from what is held at now, if it is enough on every
// bucket and has not expired, and returns the epoch to put them back in.
func (l *lease) take(now time.Time, costs []int64) (epoch uint64, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed || !now.Before(l.until) {
		return 0, false
	}
	for i, c := range costs {
		if l.left[i] < c {
			return 0, false
		}
	}
	for i, c := range costs {
		l.left[i] -= c
	}
	l.refillIfLow()
	return l.epoch, true
}

// refillIfLow starts the refilling goroutine when a bucket holds less
// than half its size and none runs; mu is held.
func (l *lease) refillIfLow() {
	if l.fetch == nil || l.refilling != nil || l.closed {
		return
	}
	low := false
	extra := make([]int64, len(l.left))
	for i, s := range l.size {
		extra[i] = max(0, s-l.left[i])
		low = low || 2*l.left[i] < s
	}
	if !low {
		return
	}
	done := make(chan struct{})
	l.refilling = done
	l.asking++
	size := l.size
	go func() {
		after := l.fetch(extra, func(at time.Time, ok bool) { l.settle(at, ok, extra, size) })
		l.mu.Lock()
		l.refilling = nil
		l.mu.Unlock()
		close(done)
		if after != nil {
			after()
		}
	}()
}

// wait waits for the refilling goroutine, if it runs.
func (l *lease) wait() {
	l.mu.Lock()
	done := l.refilling
	l.mu.Unlock()
	if done != nil {
		<-done
	}
}

// ask returns, per bucket, the units to lease with a request so that
// the lease holds up to size, and registers the round trip that leases
// them, which must settle. It returns nil, registering nothing, when
// there is nothing to lease or the lease is closed.
func (l *lease) ask(size []int64) []int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	out := make([]int64, len(size))
	some := false
	for i, s := range size {
		out[i] = max(0, s-l.left[i])
		some = some || out[i] > 0
	}
	if !some {
		return nil
	}
	l.asking++
	return out
}

// settle ends a leasing round trip of units, registered by ask or by the
// refilling goroutine: when ok (Redis took them), it grants them at now.
func (l *lease) settle(now time.Time, ok bool, units, size []int64) {
	if l.hooks.roundTrip != nil {
		l.hooks.roundTrip()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if ok {
		l.add(now, units, size)
	}
	l.asking--
	if l.asking == 0 && l.settled != nil {
		close(l.settled)
		l.settled = nil
	}
}

// grant adds units leased at now, renewing what is held for ttl. It
// keeps at most size per bucket and gives the rest back to Redis.
func (l *lease) grant(now time.Time, units, size []int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.add(now, units, size)
}

// add is grant with mu held; once closed, it gives all units back.
func (l *lease) add(now time.Time, units, size []int64) {
	if l.closed {
		l.give(units)
		return
	}
	l.size = size
	l.fill(units)
	l.until = now.Add(l.ttl)
	if l.timer == nil {
		l.timer = time.AfterFunc(l.ttl, l.expire)
	} else {
		l.timer.Reset(l.ttl)
	}
}

// fill adds units to what is held, up to size, and gives the rest back;
// mu is held.
func (l *lease) fill(units []int64) {
	var excess []int64
	for i, u := range units {
		l.left[i] += u
		if over := l.left[i] - l.size[i]; over > 0 {
			if excess == nil {
				excess = make([]int64, len(units))
			}
			excess[i], l.left[i] = over, l.size[i]
		}
	}
	l.give(excess)
}

// put puts back the costs of a cancelled reservation taken in epoch:
// into what is held, if it has not expired since, up to its size; the
// rest to Redis.
func (l *lease) put(epoch uint64, costs []int64) {
	l.mu.Lock()
	if l.closed {
		// A cancel after close began: given back outside mu, for the
		// queue may be closed too, and then giveBack reports it (to a
		// handler that may call the lease).
		l.mu.Unlock()
		l.give(costs)
		return
	}
	defer l.mu.Unlock()
	if epoch != l.epoch {
		l.give(costs)
		return
	}
	l.fill(costs) // topped up meanwhile: what exceeds the size goes back
}

// expire gives back what is held once it expired.
func (l *lease) expire() {
	l.mu.Lock()
	if time.Now().Before(l.until) {
		l.mu.Unlock() // renewed meanwhile: the timer was reset
		return
	}
	l.give(l.drain())
	l.mu.Unlock()
	if l.hooks.expired != nil {
		l.hooks.expired()
	}
}

// close gives back what is held, leases nothing more, and waits for the
// leasing round trips under way, whose units come back as they return,
// and for the refilling goroutine to end.
func (l *lease) close() {
	l.mu.Lock()
	l.closed = true
	if l.timer != nil {
		l.timer.Stop()
	}
	l.give(l.drain())
	var settled chan struct{}
	if l.asking > 0 {
		if l.settled == nil {
			l.settled = make(chan struct{})
		}
		settled = l.settled
		if l.hooks.closeWaits != nil {
			l.hooks.closeWaits()
		}
	}
	l.mu.Unlock()
	if settled != nil {
		<-settled
	}
	l.wait()
}

// drain empties what is held and returns it; mu is held.
func (l *lease) drain() []int64 {
	units := l.left
	l.left = make([]int64, len(units))
	l.epoch++
	return units
}

// give gives units back to Redis, if there are any; mu is held.
func (l *lease) give(units []int64) {
	for _, u := range units {
		if u > 0 {
			l.giveBack(units)
			return
		}
	}
}

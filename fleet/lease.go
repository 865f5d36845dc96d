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
type lease struct {
	ttl      time.Duration
	giveBack func(units []int64) // returns expired units to Redis; not called with mu held
	// fetch leases extra units for a lease of size in one round trip and
	// grants them; called by the refilling goroutine, nil for none.
	fetch func(extra, size []int64)

	mu        sync.Mutex
	left      []int64   // units held, per bucket
	size      []int64   // units held at most, per bucket, as of the last grant
	until     time.Time // when what is held expires
	epoch     uint64    // counts expiries, so that a late cancel does not refill a newer lease
	timer     *time.Timer
	closed    bool
	refilling chan struct{} // closed when the refilling goroutine ends; nil when none runs
}

func newLease(buckets int, ttl time.Duration, giveBack func([]int64), fetch func(extra, size []int64)) *lease {
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
	size := l.size
	go func() {
		defer close(done)
		l.fetch(extra, size)
		l.mu.Lock()
		l.refilling = nil
		l.mu.Unlock()
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

// extra returns, per bucket, the units to lease with a request of costs,
// so that the lease holds up to size: none once closed.
func (l *lease) extra(size []int64) []int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]int64, len(size))
	if l.closed {
		return out
	}
	for i, s := range size {
		out[i] = max(0, s-l.left[i])
	}
	return out
}

// grant adds units leased at now, renewing what is held for ttl. It
// keeps at most size per bucket and gives the rest back to Redis.
func (l *lease) grant(now time.Time, units, size []int64) {
	l.mu.Lock()
	var excess []int64
	if l.closed {
		excess = units
	} else {
		for i, u := range units {
			l.left[i] += u
			if over := l.left[i] - size[i]; over > 0 {
				if excess == nil {
					excess = make([]int64, len(units))
				}
				excess[i], l.left[i] = over, size[i]
			}
		}
		l.size = size
		l.until = now.Add(l.ttl)
		if l.timer == nil {
			l.timer = time.AfterFunc(l.ttl, l.expire)
		} else {
			l.timer.Reset(l.ttl)
		}
	}
	l.mu.Unlock()
	l.give(excess)
}

// put puts back the costs of a cancelled reservation taken in epoch:
// into what is held, if it has not expired since, up to its size; the
// rest to Redis.
func (l *lease) put(epoch uint64, costs []int64) {
	l.mu.Lock()
	if l.closed || epoch != l.epoch {
		l.mu.Unlock()
		l.give(costs)
		return
	}
	var excess []int64
	for i, c := range costs {
		l.left[i] += c
		if over := l.left[i] - l.size[i]; over > 0 {
			if excess == nil {
				excess = make([]int64, len(costs))
			}
			excess[i], l.left[i] = over, l.size[i]
		}
	}
	l.mu.Unlock()
	l.give(excess) // topped up meanwhile: what exceeds the size goes back
}

// expire gives back what is held once it expired.
func (l *lease) expire() {
	l.mu.Lock()
	if time.Now().Before(l.until) {
		l.mu.Unlock() // renewed meanwhile: the timer was reset
		return
	}
	units := l.drain()
	l.mu.Unlock()
	l.give(units)
}

// close gives back what is held and leases nothing more, once the
// refilling goroutine, if it runs, has ended.
func (l *lease) close() {
	l.mu.Lock()
	l.closed = true
	if l.timer != nil {
		l.timer.Stop()
	}
	units := l.drain()
	l.mu.Unlock()
	l.give(units)
	l.wait() // what it leases now goes back at once: closed
}

// drain empties what is held and returns it; mu is held.
func (l *lease) drain() []int64 {
	units := l.left
	l.left = make([]int64, len(units))
	l.epoch++
	return units
}

// give gives units back to Redis, if there are any.
func (l *lease) give(units []int64) {
	for _, u := range units {
		if u > 0 {
			l.giveBack(units)
			return
		}
	}
}

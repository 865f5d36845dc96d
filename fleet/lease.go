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
// does not keep capacity from the others. It is safe for concurrent use.
//
// At any time a replica holds at most the lease's size per bucket; that
// is all it can admit beyond what Redis counts in a window (units
// counted before the window, used in it), so n replicas admit at most
// limit + n × size per window.
type lease struct {
	ttl      time.Duration
	giveBack func(units []int64) // returns expired units to Redis; not called with mu held

	mu     sync.Mutex
	left   []int64   // units held, per bucket
	until  time.Time // when what is held expires
	epoch  uint64    // counts expiries, so that a late cancel does not refill a newer lease
	timer  *time.Timer
	closed bool
}

func newLease(buckets int, ttl time.Duration, giveBack func([]int64)) *lease {
	return &lease{ttl: ttl, giveBack: giveBack, left: make([]int64, buckets)}
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
	return l.epoch, true
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
// into what is held, if it has not expired since, else to Redis.
func (l *lease) put(epoch uint64, costs []int64) {
	l.mu.Lock()
	if l.closed || epoch != l.epoch {
		l.mu.Unlock()
		l.give(costs)
		return
	}
	for i, c := range costs {
		l.left[i] += c
	}
	l.mu.Unlock()
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

// close gives back what is held and leases nothing more.
func (l *lease) close() {
	l.mu.Lock()
	l.closed = true
	if l.timer != nil {
		l.timer.Stop()
	}
	units := l.drain()
	l.mu.Unlock()
	l.give(units)
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

package fleet

import (
	"sync"
	"time"
)

// gateState is what a redisGate knows of Redis.
type gateState int

const (
	gateUp      gateState = iota // operations go to Redis
	gateDown                     // Redis failed: decide locally until the window ends
	gateProbing                  // one operation tries Redis; the others decide locally
)

// redisGate is a circuit around Redis itself: after an operation fails,
// Redis is left alone for a back-off window, during which callers decide
// locally at no cost; the first operation after the window tries Redis
// again (the probe), alone, and its outcome opens the gate or starts a
// new window. It is safe for concurrent use.
type redisGate struct {
	backoff time.Duration

	mu    sync.Mutex
	state gateState
	until time.Time // end of the window, while gateDown
}

// enter reports whether an operation at now may go to Redis. An operation
// that entered must call leave with its outcome.
func (g *redisGate) enter(now time.Time) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch g.state {
	case gateUp:
		return true
	case gateDown:
		if now.Before(g.until) {
			return false
		}
		g.state = gateProbing
		return true
	default:
		return false
	}
}

// up reports whether Redis is taken to be up.
func (g *redisGate) up() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.state == gateUp
}

// leave records an entered operation's outcome: ok opens the gate (a
// success of an operation that entered while Redis was up does not undo
// a failure seen meanwhile); a failure closes it for the back-off window
// from now.
func (g *redisGate) leave(now time.Time, ok bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case !ok:
		g.state, g.until = gateDown, now.Add(g.backoff)
	case g.state == gateProbing:
		g.state = gateUp
	}
}

package fleet

import (
	"sync"
	"time"

	"github.com/sony/gobreaker/v2"
)

// localBreaker is a Breaker's process-local stand-in while Redis is
// down: gobreaker's state machine, with the Breaker's settings, started
// from the shared state last read, so that a route the fleet saw failing
// stays skipped in every replica.
//
// gobreaker starts a breaker closed and offers no way to set its state,
// so localBreaker runs the state it starts from itself until that state
// closes, by gobreaker's rules: open until the expiry the shared state
// said, then half-open, letting Settings.MaxRequests requests through
// (an excluded outcome gives its place back); as many consecutive
// successes close it, a failure opens it again for Settings.Timeout.
// Once closed, a gobreaker.TwoStepCircuitBreaker started closed decides,
// alone, until the next start.
//
// Settings.OnStateChange hears of every change, as gobreaker calls it:
// synchronously, with the breaker's lock held. A start is no change and
// is not reported. A localBreaker is safe for concurrent use.
type localBreaker struct {
	st      gobreaker.Settings
	maxReq  uint32        // st.MaxRequests as gobreaker reads it
	timeout time.Duration // st.Timeout as gobreaker reads it

	mu      sync.Mutex
	version uint64 // of the shared state it started from (0: none, closed)
	// own is the state it runs itself, open or half-open; closed when cb
	// decides (cb, which may be open by then).
	own       gobreaker.State
	expiry    time.Time        // end of own's open state
	gen       uint64           // counts own's states and cb's: outcomes of an earlier one are dropped
	ownCounts gobreaker.Counts // of own's state
	cb        *gobreaker.TwoStepCircuitBreaker[struct{}]
}

// gobreaker's defaults of Settings.MaxRequests and Settings.Timeout.
const (
	gobreakerMaxRequests = 1
	gobreakerTimeout     = 60 * time.Second
)

func newLocalBreaker(st gobreaker.Settings) *localBreaker {
	l := &localBreaker{st: st, maxReq: st.MaxRequests, timeout: st.Timeout}
	if l.maxReq == 0 {
		l.maxReq = gobreakerMaxRequests
	}
	if l.timeout <= 0 {
		l.timeout = gobreakerTimeout
	}
	l.cb = gobreaker.NewTwoStepCircuitBreaker[struct{}](st)
	return l
}

// start starts l from s, the shared state of version v (versions count
// the states read, from 1), unless l started from that version or a
// later one already: the counts start from zero, an open state lasts
// until s's expiry. Requests allowed before are dropped from the counts.
func (l *localBreaker) start(v uint64, s sharedState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if v <= l.version {
		return
	}
	l.version = v
	l.own, l.expiry, l.gen, l.ownCounts = s.state, s.expiry, l.gen+1, gobreaker.Counts{}
	if s.state == gobreaker.StateClosed {
		l.cb = gobreaker.NewTwoStepCircuitBreaker[struct{}](l.st)
	}
}

// allow asks to send one request at now, as
// gobreaker.TwoStepCircuitBreaker.Allow does.
func (l *localBreaker) allow(now time.Time) (done func(error), err error) {
	l.mu.Lock()
	l.moveOn(now)
	switch l.own {
	case gobreaker.StateOpen:
		l.mu.Unlock()
		return nil, gobreaker.ErrOpenState
	case gobreaker.StateHalfOpen:
		defer l.mu.Unlock()
		c := &l.ownCounts
		if c.Requests-min(c.TotalExclusions, c.Requests) >= l.maxReq {
			return nil, gobreaker.ErrTooManyRequests
		}
		c.Requests++
		gen := l.gen
		return func(err error) { l.done(gen, err) }, nil
	}
	cb, gen := l.cb, l.gen
	l.mu.Unlock()
	cbDone, err := cb.Allow()
	if err != nil {
		return nil, err
	}
	return func(err error) {
		l.mu.Lock()
		defer l.mu.Unlock()
		if gen == l.gen { // else cb was replaced: it must not report changes
			cbDone(err)
		}
	}, nil
}

// done records the outcome of a request allowed in own's generation gen.
func (l *localBreaker) done(gen uint64, outcome error) {
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if gen != l.gen || l.own != gobreaker.StateHalfOpen {
		return // allowed in an earlier state
	}
	switch {
	case l.st.IsExcluded != nil && l.st.IsExcluded(outcome):
		l.ownCounts.TotalExclusions++
	case l.successful(outcome):
		l.ownCounts.TotalSuccesses++
		l.ownCounts.ConsecutiveSuccesses++
		l.ownCounts.ConsecutiveFailures = 0
		if l.ownCounts.ConsecutiveSuccesses >= l.maxReq {
			l.set(gobreaker.StateClosed, now)
		}
	default:
		l.set(gobreaker.StateOpen, now)
	}
}

// successful reports whether outcome counts as a success.
func (l *localBreaker) successful(outcome error) bool {
	if l.st.IsSuccessful != nil {
		return l.st.IsSuccessful(outcome)
	}
	return outcome == nil
}

// moveOn makes own's open state half-open once it expired at now, as the
// shared state moves on at its expiry. l.mu is held.
func (l *localBreaker) moveOn(now time.Time) {
	if l.own == gobreaker.StateOpen && !now.Before(l.expiry) {
		l.set(gobreaker.StateHalfOpen, now)
	}
}

// set changes own's state at now and reports the change; closed hands
// over to a new closed gobreaker breaker. l.mu is held.
func (l *localBreaker) set(to gobreaker.State, now time.Time) {
	from := l.own
	l.own, l.gen, l.ownCounts = to, l.gen+1, gobreaker.Counts{}
	switch to {
	case gobreaker.StateOpen:
		l.expiry = now.Add(l.timeout)
	case gobreaker.StateClosed:
		l.cb = gobreaker.NewTwoStepCircuitBreaker[struct{}](l.st)
	}
	if l.st.OnStateChange != nil {
		l.st.OnStateChange(l.st.Name, from, to)
	}
}

// state returns the state at now.
func (l *localBreaker) state(now time.Time) gobreaker.State {
	l.mu.Lock()
	l.moveOn(now)
	own, cb := l.own, l.cb
	l.mu.Unlock()
	if own != gobreaker.StateClosed {
		return own
	}
	return cb.State()
}

// counts returns the counts of the current state.
func (l *localBreaker) counts() gobreaker.Counts {
	l.mu.Lock()
	own, counts, cb := l.own, l.ownCounts, l.cb
	l.mu.Unlock()
	if own != gobreaker.StateClosed {
		return counts
	}
	return cb.Counts()
}

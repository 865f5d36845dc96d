package tokenpace

import (
	"errors"
	"time"
)

// errAbandoned is what a held-up reader finds once its attempt was ended
// without it: it ends its reading, and nobody sees it.
var errAbandoned = errors.New("tokenpace: the attempt ended while the caller's code held its reader up")

// awaitEnd waits until the attempt has ended and released its body, or,
// when stuckGrace passes first, ends it itself: see abandon.
func (a *attempt) awaitEnd() {
	if !endsInGrace(a.done) {
		a.abandon()
	}
}

// abandon ends a stopped attempt whose reader is held up by the caller's
// code, on the goroutine that stopped it: its Timing is final, its end
// event has run and it is released, as after any stop. The held-up
// goroutine, once that code returns, finds the attempt ended: it delivers
// nothing more, runs no event and no hook, closes the body and exits.
// An attempt that has ended already, whose body's close or drain alone
// is held up, is left to it.
func (a *attempt) abandon() {
	a.mu.Lock()
	ended := a.final
	if !ended {
		a.gone.Store(true)
	}
	a.mu.Unlock()
	if ended {
		return
	}
	a.end(a.failure(KindReset, "", nil), time.Now())
	a.release()
}

// awaitEnd waits until the call has ended, or, when stuckGrace passes
// first, abandons the attempts it still waits for (see attempt.abandon):
// their end events then run, and the call ends.
func (c *call) awaitEnd() {
	if endsInGrace(c.done) {
		return
	}
	c.mu.Lock()
	var held []*attempt
	for _, tr := range c.tries {
		if tr.a != nil {
			held = append(held, tr.a)
		}
	}
	c.mu.Unlock()
	for _, a := range held {
		a.abandon()
	}
	<-c.done
}

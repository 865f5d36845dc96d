package tokenpace

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sony/gobreaker/v2"
)

// errWaitGivenUp is what a call's admission returns when it stopped
// waiting for the caller's code: see givenUp for the error it ends with.
var errWaitGivenUp = errors.New("tokenpace: the call stopped waiting for the caller's breaker or limiter")

// A Router call runs some code of the caller's with its lock held: a
// Route's own Breaker (Allow, State, the done it gives) and Limiter
// (Reserve, the cancel it gives, Settle), and validators. Such code may
// block: a breaker that asks a remote store without a timeout, a limiter
// that waits for a token of its own. The call waits for it only as long
// as its caller does: until it returns, the call's context ends or the
// caller closes the stream. Past that, the code goes on alone, and what
// it then gives back is undone when it returns (a breaker's admission is
// reported as never sent, a reservation is cancelled). The built-in
// breakers and limiters run inline: the callbacks of the caller's they
// run (BreakerSettings' ReadyToTrip and OnStateChange) are bounded in
// BreakerSettings.Gobreaker, where they fire, rarely.

// external runs f, code of the caller's, and waits until it returns, the
// call's context ends or the stream is closed; it reports whether f
// returned. When it did not, undo, if not nil, runs once f returns.
func (c *call) external(f, undo func()) bool {
	const running, returned, givenUp = 0, 1, 2
	var state atomic.Int32
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
		if !state.CompareAndSwap(running, returned) && undo != nil {
			undo()
		}
	}()
	select {
	case <-done:
		return true
	case <-c.ctx.Done():
	case <-c.closing.done():
	}
	if state.CompareAndSwap(running, givenUp) {
		return false
	}
	<-done // f returned meanwhile: its results are the call's
	return true
}

// givenUp is the error of a try whose admission the call stopped waiting
// for: the end of its context, or the closed stream.
func (c *call) givenUp() error {
	if err := ctxErr(c.ctx); err != nil {
		return err
	}
	return ErrStreamClosed
}

// closingNow reports whether the caller has closed the stream.
func (c *call) closingNow() bool {
	select {
	case <-c.closing.done():
		return true
	default:
		return false
	}
}

// allow asks rt's breaker to let a request through. It returns
// errWaitGivenUp when the call stopped waiting for one of the caller's.
func (c *call) allow(rt *route) (done func(error), err error) {
	if !rt.brCode {
		return rt.br.Allow()
	}
	var d func(error)
	var e error
	undo := func() {
		if d != nil {
			d(errNotSent)
		}
	}
	if !c.external(func() { d, e = rt.br.Allow() }, undo) {
		return nil, errWaitGivenUp
	}
	return d, e
}

// breakerState returns the state of rt's breaker, and false when the call
// stopped waiting for one of the caller's.
func (c *call) breakerState(rt *route) (st gobreaker.State, ok bool) {
	if !rt.brCode {
		return rt.br.State(), true
	}
	var s gobreaker.State
	if !c.external(func() { s = rt.br.State() }, nil) {
		return gobreaker.StateClosed, false // s is the goroutine's still
	}
	return s, true
}

// tellBreaker reports the outcome of tr's request to its breaker, once.
func (c *call) tellBreaker(tr *try, err error) {
	done := tr.brDone
	if done == nil {
		return
	}
	tr.brDone = nil
	if !tr.rt.brCode {
		done(err)
		return
	}
	c.external(func() { done(err) }, nil)
}

// reserve reserves room for a request of tokens tokens at now on rt's
// limiter (see route.reserve). err is errWaitGivenUp when the call
// stopped waiting for a Limiter of the caller's.
func (c *call) reserve(rt *route, now time.Time, tokens int) (res reservation, delay time.Duration, ok bool, err error) {
	if rt.Limiter == nil {
		return rt.reserve(now, tokens)
	}
	var r reservation
	var d time.Duration
	var admitted bool
	var e error
	undo := func() {
		if admitted {
			r.cancel(now)
		}
	}
	if !c.external(func() { r, d, admitted, e = rt.reserve(now, tokens) }, undo) {
		return reservation{}, 0, false, errWaitGivenUp
	}
	return r, d, admitted, e
}

// cancelReservation gives back res, a request's that was not sent.
func (c *call) cancelReservation(res reservation, now time.Time) {
	if res.shared == nil {
		res.cancel(now)
		return
	}
	c.external(func() { res.cancel(now) }, nil)
}

// settle corrects res by the tokens its request used (see
// reservation.settle).
func (c *call) settle(res reservation, now time.Time, used int) {
	if res.settler == nil {
		res.settle(now, used)
		return
	}
	c.external(func() { res.settle(now, used) }, nil)
}

// latch is a signal given once, that any number may wait for. Its
// channel is made with it.
type latch struct {
	once sync.Once
	ch   chan struct{}
}

// done returns a channel closed once the latch is set.
func (l *latch) done() <-chan struct{} { return l.ch }

// set closes done's channel.
func (l *latch) set() { l.once.Do(func() { close(l.ch) }) }

package tokenpace

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
)

// errWaitGivenUp is what a call's admission returns when it stopped
// waiting for the caller's code: see callerCode.givenUp for the error it
// ends with.
var errWaitGivenUp = errors.New("tokenpace: the call stopped waiting for the caller's breaker or limiter")

// callerCode runs code of the caller's for a Router call that holds its
// lock: a Route's own Breaker (Allow, State, the done it gives) and
// Limiter (Reserve, the cancel it gives, Settle), and validators. Such
// code may block: a breaker that asks a remote store without a timeout,
// a limiter that waits for a token of its own. The call waits for it only
// as long as its caller does: until it returns, the call's context ends
// or the caller closes the stream. Past that, the code goes on alone, and
// what it then gives back is undone when it returns (a breaker's
// admission is reported as never sent, a reservation is cancelled). The
// built-in breakers and limiters run inline: the callbacks of the
// caller's they run (BreakerSettings' ReadyToTrip and OnStateChange) are
// bounded in BreakerSettings.Gobreaker, where they fire, rarely.
type callerCode struct {
	ctx     context.Context // the call's
	closing *latch          // set when the caller closes the stream
}

// run runs f, code of the caller's, and waits until it returns, the
// call's context ends or the stream is closed; it reports whether f
// returned. When it did not, undo, if not nil, runs once f returns.
func (cc callerCode) run(f, undo func()) bool {
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
	case <-cc.ctx.Done():
	case <-cc.closing.done():
	}
	if state.CompareAndSwap(running, givenUp) {
		return false
	}
	<-done // f returned meanwhile: its results are the call's
	return true
}

// givenUp is the error of a try whose admission, or validation, the call
// stopped waiting for: the end of its context, or the closed stream.
func (cc callerCode) givenUp() error {
	if err := ctxErr(cc.ctx); err != nil {
		return err
	}
	return ErrStreamClosed
}

// closed reports whether the caller has closed the stream.
func (cc callerCode) closed() bool {
	select {
	case <-cc.closing.done():
		return true
	default:
		return false
	}
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

package tokenpace

import (
	"runtime/debug"
	"time"

	"github.com/sony/gobreaker/v2"
)

// What a panic in the caller's code does.
//
// A Stream runs functions of the caller's (hooks, middlewares, milestone
// predicates, validators) on goroutines the caller cannot guard: a
// Router's attempts and a Client's background reader. As net/http does
// for a handler, tokenpace recovers a panic in any of them: the call ends
// with a KindPanic *StreamError (its output so far kept, Close never
// hangs) and the program goes on. The Done hook runs once the call has
// ended; a panic there becomes the call's error if it had none.

// guard runs f, which calls a function of the caller's, and returns a
// KindPanic *StreamError of target if it panicked; *what names the
// function it was in (f may change it as it goes).
func guard(target string, what *string, f func()) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &StreamError{Kind: KindPanic, Target: target, Detail: *what,
				Err: &panicError{value: v, stack: debug.Stack()}}
		}
	}()
	f()
	return nil
}

// isPanic reports whether err is a call's end by a panic of the caller's
// code.
func isPanic(err error) bool { return isKind(err, KindPanic) }

// isKind reports whether err is a *StreamError of kind k.
func isKind(err error, k ErrorKind) bool {
	se, ok := err.(*StreamError)
	return ok && se.Kind == k
}

// recoverInto, deferred, makes a panic in the function that deferred it
// that function's error.
func recoverInto(err *error) {
	if v := recover(); v != nil {
		*err = &panicError{value: v, stack: debug.Stack()}
	}
}

// guardedBreaker is a Breaker of the caller's (Route.Breaker), which a
// call asks with its own lock held, on goroutines the caller cannot
// guard: a panic in Allow is its error (the route is skipped, and the
// try's error is KindPanic), one in its done or State is dropped (State
// then says closed).
type guardedBreaker struct{ Breaker }

func (b guardedBreaker) Allow() (done func(error), err error) {
	defer recoverInto(&err)
	done, err = b.Breaker.Allow()
	if inner := done; inner != nil {
		done = func(err error) {
			defer func() { _ = recover() }()
			inner(err)
		}
	}
	return done, err
}

func (b guardedBreaker) State() (s gobreaker.State) {
	defer func() {
		if recover() != nil {
			s = gobreaker.StateClosed
		}
	}()
	return b.Breaker.State()
}

// reserveGuarded asks l, a Limiter of the caller's (Route.Limiter), to
// reserve, as guardedBreaker asks a breaker: a panic in Reserve is its
// error, one in its cancel is dropped.
func reserveGuarded(l Limiter, now time.Time, tokens int) (d time.Duration, cancel func(time.Time), err error) {
	defer recoverInto(&err)
	d, cancel, err = l.Reserve(now, tokens)
	if inner := cancel; inner != nil {
		cancel = func(now time.Time) {
			defer func() { _ = recover() }()
			inner(now)
		}
	}
	return d, cancel, err
}

package tokenpace

import (
	"runtime/debug"
	"time"
)

// What a panic, or a hold-up, in the caller's code does.
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

// What a hold-up in the caller's code does: the waits below bound it.

// stuckGrace is how long Close waits for an attempt to end once it has
// been stopped. A body from the transport ends its read when it is closed
// or its request's context is cancelled, at once; code of the caller's may
// do neither: a middleware that does not return, a body whose Read
// ignores its Close and the context, a hook that blocks. Close then ends
// the attempt without it (see abandon) rather than wait as long as that
// code does.
const stuckGrace = 100 * time.Millisecond

// endsInGrace reports whether done is closed within stuckGrace.
func endsInGrace(done <-chan struct{}) bool {
	timer := time.NewTimer(stuckGrace)
	defer timer.Stop()
	select {
	case <-done:
		return true
	case <-timer.C:
		return false
	}
}

// inGrace runs f, a callback of the caller's that a breaker runs with its
// lock, and a Router call's, held (ReadyToTrip, OnStateChange), and waits
// for it at most stuckGrace; it reports whether f returned in time. Past
// that, f goes on alone on its own goroutine.
func inGrace(f func()) bool {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	return endsInGrace(done)
}

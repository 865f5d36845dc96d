package tokenpace

import (
	"runtime/debug"
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

package tokenpace

import (
	"context"
	"errors"
	"sync"
)

// ErrSuperseded is the cause (context.Cause) of a request's context that
// Latest cancelled because a newer request for the same key began, and the
// error such a request ends with (Stream.Err, Timing.Err, New), so
// that errors.Is(err, ErrSuperseded) tells a superseded request from one
// its caller cancelled; errors.Is(err, context.Canceled) holds too. A
// Router call ended that way records its attempts with OutcomeSuperseded,
// which counts neither as a failure nor against a circuit breaker.
var ErrSuperseded error = supersededError{}

type supersededError struct{}

func (supersededError) Error() string { return "tokenpace: superseded by a newer request" }

// Is makes a superseded request a cancelled one too.
func (supersededError) Is(target error) bool { return target == context.Canceled }

// ctxErr returns the error of a request whose context ctx ended: ctx.Err()
// unchanged, or ErrSuperseded when Latest cancelled it; nil while ctx is
// live.
func ctxErr(ctx context.Context) error {
	err := ctx.Err()
	if err != nil && errors.Is(context.Cause(ctx), ErrSuperseded) {
		return ErrSuperseded
	}
	return err
}

// Latest keeps at most one request in flight per key, latest wins: what
// autocompletion needs, where each keystroke makes the previous suggestion
// worthless. Begin supersedes any request; NewCompletionStreaming adds
// type-ahead reuse, which keeps the completion in flight when the user has
// typed what it was suggesting. The zero value is ready to use, without
// reuse until NewCompletionStreaming is called; a Latest is safe for
// concurrent use.
//
// A request under Begin's context, as NewCompletionStreaming, waits for
// its response headers, as openai-go's NewStreaming does, and some servers
// (Ollama) send them only with the first token: make each keystroke's
// request on a goroutine of its own, so that the next keystroke is not held
// up and supersedes it (see examples/autocomplete).
type Latest struct {
	mu       sync.Mutex
	inflight map[string]*latestEntry
}

type latestEntry struct {
	cancel context.CancelCauseFunc
	// ta, when set, is a completion of NewCompletionStreaming that a
	// request under the key may reuse (typeahead.go).
	ta *typeAhead
}

// Begin returns a context for a new request under key and cancels the
// request in flight under key, if any, with cause ErrSuperseded. Call done
// when the request has ended: it releases the key (unless a newer request
// holds it) and cancels the context.
func (l *Latest) Begin(ctx context.Context, key string) (_ context.Context, done func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	e := &latestEntry{cancel: cancel}
	l.mu.Lock()
	if l.inflight == nil {
		l.inflight = make(map[string]*latestEntry)
	}
	old := l.inflight[key]
	l.inflight[key] = e
	l.mu.Unlock()
	if old != nil {
		old.supersede()
	}
	return ctx, func() {
		l.mu.Lock()
		if l.inflight[key] == e {
			delete(l.inflight, key)
		}
		l.mu.Unlock()
		cancel(context.Canceled)
	}
}

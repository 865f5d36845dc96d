package tokenpace

import (
	"context"
	"time"
)

// Hooks are the callbacks through which a request's events reach metrics,
// logs and user code, in the manner of net/http/httptrace.ClientTrace. Any
// field may be nil. Hooks run synchronously on the goroutine that observed
// the event and must not block. In particular a hook must not call Next or
// Close on its own request's stream, which wait for the goroutine the hook
// runs on: to stop a stream from a hook, cancel the request's context.
//
// Done is called exactly once per request, whatever its ending (end of
// stream, error, Close, context cancellation), with the final Timing, which
// the hook may keep but must not modify.
//
// A hook that panics ends its request with a KindPanic *StreamError, as
// net/http recovers a handler's panic: it never crashes the program from
// a goroutine the caller cannot guard, nor leaves Next or Close waiting. A
// panic in Done makes that the request's error if it had none.
type Hooks struct {
	// FirstToken is called when the first output-bearing chunk arrives;
	// never for a non-streaming call (New and the like), which shows no
	// token before its whole answer.
	FirstToken func(ctx context.Context, info FirstTokenInfo)
	// Milestone is called when a milestone (first sentence, first line, a
	// user-defined predicate) is first reached. A sentence is known to have
	// ended only when the white space after its terminator (or the end)
	// arrives, so that call may come a chunk after its At.
	Milestone func(ctx context.Context, info MilestoneInfo)
	// Done is called once when the request has ended.
	Done func(ctx context.Context, t *Timing)
}

// FirstTokenInfo describes the arrival of a request's first token.
type FirstTokenInfo struct {
	// Target and Model name the route and model that produced the token
	// (Target is empty for a plain call).
	Target, Model string
	// At is the arrival time of the first token.
	At time.Time
	// TTFT is the time from Timing.Sent to At.
	TTFT time.Duration
}

// MilestoneInfo describes a milestone reached by a request.
type MilestoneInfo struct {
	// Target and Model name the route and model of the request (Target
	// is empty for a plain call); Name names the milestone.
	Target, Model, Name string
	// At is the arrival time of the chunk that reached it.
	At time.Time
	// Elapsed is the time from Timing.Sent to At.
	Elapsed time.Duration
}

func firstTokenInfo(target, model string, sent, at time.Time) FirstTokenInfo {
	return FirstTokenInfo{Target: target, Model: model, At: at, TTFT: since(sent, at)}
}

func milestoneInfo(target, model, name string, sent, at time.Time) MilestoneInfo {
	return MilestoneInfo{Target: target, Model: model, Name: name, At: at, Elapsed: since(sent, at)}
}

// composeHooks returns Hooks that call each of hooks in order.
func composeHooks(hooks ...Hooks) Hooks {
	var h Hooks
	for _, x := range hooks {
		h.FirstToken = chainHook(h.FirstToken, x.FirstToken)
		h.Milestone = chainHook(h.Milestone, x.Milestone)
		h.Done = chainHook(h.Done, x.Done)
	}
	return h
}

// chainHook returns a hook that calls first, then next; either may be nil.
func chainHook[I any](first, next func(context.Context, I)) func(context.Context, I) {
	switch {
	case first == nil:
		return next
	case next == nil:
		return first
	}
	return func(ctx context.Context, i I) {
		first(ctx, i)
		next(ctx, i)
	}
}

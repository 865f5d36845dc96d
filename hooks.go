package tokenpace

import (
	"context"
	"time"
)

// Hooks are the callbacks through which a request's events reach metrics,
// logs and user code, in the manner of net/http/httptrace.ClientTrace. Any
// field may be nil. Hooks run synchronously on the goroutine that observed
// the event and must not block.
//
// Done is called exactly once per request, whatever its ending (end of
// stream, error, Close, context cancellation), with the final Timing, which
// the hook may keep but must not modify.
type Hooks struct {
	// FirstToken is called when the first output-bearing chunk arrives.
	FirstToken func(ctx context.Context, info FirstTokenInfo)
	// Milestone is called when a milestone (first sentence, first line, a
	// user-defined predicate) is first reached.
	Milestone func(ctx context.Context, info MilestoneInfo)
	// Done is called once when the request has ended.
	Done func(ctx context.Context, t *Timing)
}

// FirstTokenInfo describes the arrival of a request's first token.
type FirstTokenInfo struct {
	Target, Model string
	// At is the arrival time; TTFT counts from Timing.Sent.
	At   time.Time
	TTFT time.Duration
}

// MilestoneInfo describes a milestone reached by a request.
type MilestoneInfo struct {
	Target, Model, Name string
	// At is the arrival time of the chunk that reached it; Elapsed counts
	// from Timing.Sent.
	At      time.Time
	Elapsed time.Duration
}

// ComposeHooks returns Hooks that call each of hooks in order.
func ComposeHooks(hooks ...Hooks) Hooks {
	var h Hooks
	for _, x := range hooks {
		if x.FirstToken != nil {
			prev := h.FirstToken
			f := x.FirstToken
			h.FirstToken = func(ctx context.Context, i FirstTokenInfo) {
				if prev != nil {
					prev(ctx, i)
				}
				f(ctx, i)
			}
		}
		if x.Milestone != nil {
			prev := h.Milestone
			f := x.Milestone
			h.Milestone = func(ctx context.Context, i MilestoneInfo) {
				if prev != nil {
					prev(ctx, i)
				}
				f(ctx, i)
			}
		}
		if x.Done != nil {
			prev := h.Done
			f := x.Done
			h.Done = func(ctx context.Context, t *Timing) {
				if prev != nil {
					prev(ctx, t)
				}
				f(ctx, t)
			}
		}
	}
	return h
}

package tokenpace

import "time"

// Attempt is one try at one target within a call.
type Attempt struct {
	// Target and Model name the route tried and the model it asked for.
	Target, Model string
	// Kind says why the Router started the attempt: AttemptFirst,
	// AttemptFallback, AttemptHedge, AttemptContinuation, AttemptRestart
	// or AttemptRetry.
	Kind AttemptKind
	// Start is when the attempt began (or was skipped); Sent when its
	// first request left (zero if it never did); FirstToken and End as for
	// Timing, on the attempt's own clock.
	Start, Sent, FirstToken, End time.Time
	// Tokens is how many output tokens the attempt delivered to the caller.
	Tokens int
	// Outcome says how the attempt ended.
	Outcome Outcome
	// Err is the attempt's error, if any.
	Err error
	// Affinity says the Router tried this route first because it had
	// answered the call's session last (Policy.Affinity).
	Affinity bool
	// Admission names the policy that held the attempt back or skipped
	// its route, beyond its breaker and client-side limit: "server_limit"
	// when its server had said it had no room until a reset or asked for
	// a wait (Limit.FollowServer), "ramp" when its breaker had closed
	// recently and the route received only a share of calls
	// (BreakerSettings.Ramp); "" otherwise.
	Admission string
	// Committed is when the attempt's output, held back on probation
	// (Policy.Probation), was released to the caller: the probation's
	// cost is Committed − FirstToken. Zero when it was not held.
	Committed time.Time
}

// TTFT is the attempt's own time to first token: from its Sent to its
// first output-bearing chunk, whether or not that reached the caller; 0
// without one.
func (a Attempt) TTFT() time.Duration { return since(a.Sent, a.FirstToken) }

// AttemptKind says why the Router started an attempt.
type AttemptKind string

// Kinds of attempt.
const (
	// AttemptFirst: the call's first try, on its first route (even when
	// that route is skipped).
	AttemptFirst AttemptKind = "first"
	// AttemptFallback: started after the earlier attempts failed, were
	// skipped (breaker open, admission refused) or breached their budget
	// before any output reached the caller; it answers from the start.
	AttemptFallback AttemptKind = "fallback"
	// AttemptHedge: started while an earlier attempt still waited for its
	// first token (Policy.Hedge).
	AttemptHedge AttemptKind = "hedge"
	// AttemptContinuation: started after output had reached the caller,
	// to carry that output on (Policy.Continue).
	AttemptContinuation AttemptKind = "continuation"
	// AttemptRestart: started after output that carried a tool call had
	// reached the caller and its attempt broke; it answers from the start,
	// and the caller is told (Stream.Restarted). See Router.
	AttemptRestart AttemptKind = "restart"
	// AttemptRetry: the same route again, after it answered with a
	// Retry-After that still fits the call's TTFT budget.
	AttemptRetry AttemptKind = "retry"
)

// Outcome says how an attempt ended.
type Outcome string

// Outcomes of an attempt.
const (
	OutcomeWon        Outcome = "won"        // delivered the caller's output
	OutcomeBreached   Outcome = "breached"   // exceeded its budget and was cancelled
	OutcomeFailed     Outcome = "failed"     // ended with an error
	OutcomeHedgeLost  Outcome = "hedge_lost" // another hedged attempt produced a token first
	OutcomeSkipped    Outcome = "skipped"    // breaker open or limiter too slow: never sent
	OutcomeInvalid    Outcome = "invalid"    // the validator rejected its output
	OutcomeSuperseded Outcome = "superseded" // a newer request for the same key replaced it
	OutcomeCanceled   Outcome = "canceled"   // the caller gave up
)

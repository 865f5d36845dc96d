package tokenpace

import (
	"context"
	"errors"
	"strconv"
	"time"
)

// happening is what an event of a try means to its call; see classify.
type happening uint8

const (
	// happenedNothing: a try the policy had stopped ended.
	happenedNothing happening = iota
	// happenedClean: a try whose output is (or waits to be) the caller's
	// ended cleanly.
	happenedClean
	// happenedBroke: a try whose output reached the caller failed.
	happenedBroke
	// happenedEarly: a try ended before any of its output reached the
	// caller, with an error or with no output at all.
	happenedEarly
	// happenedBreach: a running try exceeded its budget.
	happenedBreach
	// happenedBreachedEnd: a try stopped by a breach ended.
	happenedBreachedEnd
	// happenedFirst: a running try produced its first output token.
	happenedFirst
	// happenedHedge: the hedge timer fired while the call ran.
	happenedHedge
)

var happeningNames = [...]string{"nothing", "clean", "broke", "early", "breach", "breached-end", "first", "hedge"}

func (h happening) String() string {
	if int(h) < len(happeningNames) {
		return happeningNames[h]
	}
	return "happening(" + strconv.Itoa(int(h)) + ")"
}

// tryEvent is what a call knows of an event of one of its tries, or of
// its hedge timer.
type tryEvent struct {
	// stale: the event comes too late to count: its try, or the call, no
	// longer runs, or the hedge timer was re-armed for later.
	stale    bool
	first    bool  // the event is the try's first output token
	hedge    bool  // the event is the hedge timer's, of no try
	breach   bool  // the event is a breach, not an end
	err      error // the end's error
	cause    error // why the policy had stopped the try; nil if it had not
	outcome  Outcome
	chained  bool // the try's output reaches the caller
	buffered bool // the try won and its output waits for validation
	// retryFits: the try's route asked for a wait (retryWait) that still
	// fits the call's TTFT budget; see call.retryDelay.
	retryFits bool
	retryWait time.Duration
	at        time.Time // when the first token arrived
}

// classify says what an event of a try means to its call.
func classify(e tryEvent) happening {
	switch {
	case e.stale:
		return happenedNothing
	case e.hedge:
		return happenedHedge
	case e.first:
		return happenedFirst
	case e.breach:
		return happenedBreach
	case e.cause != nil && e.outcome == OutcomeBreached:
		return happenedBreachedEnd
	case e.cause != nil:
		return happenedNothing
	case e.err == nil && (e.chained || e.buffered):
		return happenedClean
	case e.chained:
		return happenedBroke
	}
	return happenedEarly
}

// situation is what a call's decision depends on besides the happening.
type situation struct {
	chained     bool // the try's output reaches the caller
	buffered    bool // the try won and its output waits for validation
	invalid     bool // a validator rejected the try's output
	failFast    bool // Policy.FailFast or CallPolicy.FailFast
	cont        bool // Policy.Continue, and the call's output can be carried on (it is shorter than asked, and no content policy blocked it)
	restartOnly bool // the output the caller keeps carries a tool call, audio or a refusal, or the request is one no continuation can carry on
	canceled    bool // the caller's context ended
	live        int  // other tries that run or wait in admission
	delivered   bool // some output has reached the caller
	won         bool // some try has produced the call's first token
	winner      bool // the try is the one that produced it
	routesLeft  bool // a route remains to be tried
	retryFits   bool // the try's route asked for a wait that fits the TTFT budget
	failedFast  bool // under FailFast, a breach happened while another try ran
	panicked    bool // a function of the caller's panicked: no route is to blame
	carries     bool // the try carries the caller's output on: a continuation or a restart
	resumable   bool // the try's stream is a background response's that its server can resume (see resume.go)
	resumedEnd  bool // the try resumed such a stream and ended cleanly with no token: the response's closing events
}

// decision is what a call does after an event.
type decision uint8

const (
	// decideWait: nothing now; another try still runs.
	decideWait decision = iota
	// decideFinish: end the call with the event's error.
	decideFinish
	// decideCanceled: end the call with the caller's context error.
	decideCanceled
	// decideFallback: start the next route from the beginning; end the
	// call with the last error if none can start.
	decideFallback
	// decideContinue: start the next route carrying on the caller's
	// output; end the call with the last error if none can start.
	decideContinue
	// decideRestart: start the next route from the beginning, its output
	// replacing the caller's (which carries a tool call); end the call
	// with the last error if none can start.
	decideRestart
	// decideRetry: a validator rejected a buffered output; start the next
	// route from the beginning, else deliver it.
	decideRetry
	// decideDeliver: hand a buffered output to the caller and end the
	// call with its validation error, if any.
	decideDeliver
	// decideRetryRoute: try the same route again after the wait it asked
	// for; fall back if admission refuses.
	decideRetryRoute
	// decideJoin: a continuation or a restart that produced its first
	// token carries the caller's output on; it joins the chain (a restart
	// after dropping what it replaces).
	decideJoin
	// decideLose: another try produced the call's first token: stop this
	// one, which lost the hedge.
	decideLose
	// decideWin: the try produced the call's first token: it wins the
	// call, the others lose the hedge, and its output reaches the caller
	// unless held (Probation, RetryInvalid).
	decideWin
	// decideHedge: start a hedged try, and re-arm the timer while hedges
	// and routes remain.
	decideHedge
	// decideResume: resume the try's stream at its route, a continuation
	// that picks up the background response after the last event the
	// caller has; continue as decideContinue does if it cannot start.
	decideResume
)

var decisionNames = [...]string{"wait", "finish", "canceled", "fallback", "continue", "restart", "retry", "deliver", "retry-route", "join", "lose", "win", "hedge", "resume"}

func (d decision) String() string {
	if int(d) < len(decisionNames) {
		return decisionNames[d]
	}
	return "decision(" + strconv.Itoa(int(d)) + ")"
}

// plan is all that a call does about one event of a try, or of its hedge
// timer: what decide says, the error the call goes on with, and the
// call's state it changes.
// act carries it out, the only writer of that state.
type plan struct {
	decision
	err error // the error the call goes on with
	// empty: the try is an answer without output, the caller's if no
	// other try gives one.
	empty bool
	// unwin: the try no longer wins the call (it failed before its output
	// reached the caller).
	unwin bool
	// failedFast, when not nil, is the call's first breach under FailFast,
	// which ends it once no try runs.
	failedFast error
	// lastErr: err is the call's last error, what it ends with if no
	// route is left.
	lastErr bool
	// launch is the kind of try the call starts at its next route that
	// admits it ("": none; a retry of the same route falls back with it
	// when admission refuses).
	launch AttemptKind
	// breach, when not nil, is the budget the try exceeded, recorded with
	// the call's breaches.
	breach *BudgetError
	// wait is how long a retry of the try's route waits (decideRetryRoute).
	wait time.Duration
	// at is when the try's first token arrived (decideWin: its probation
	// starts there).
	at time.Time
}

// planFor says what a call does about h, an event that brought err, in
// situation s; failedFast is the call's first breach under FailFast, if
// any.
func planFor(h happening, s situation, err, failedFast error) plan {
	if h == happenedFirst || h == happenedHedge {
		// Neither ends a try: no error, and the call's state changes
		// only as the decision says.
		d := decide(h, s)
		return plan{decision: d, launch: d.launches()}
	}
	p := plan{err: err, empty: h == happenedEarly && err == nil}
	if h != happenedClean && s.winner && !s.chained {
		p.unwin, s.won = true, false
	}
	p.decision = decide(h, s)
	switch {
	case h == happenedBreach && s.failFast && failedFast == nil:
		// FailFast ends the call with its first breach, now or once the
		// tries that run have failed too.
		p.failedFast = err
	case p.decision == decideFinish && failedFast != nil && !s.delivered:
		// No try answered: the call ends with the first breach.
		p.err = failedFast
	}
	if h == happenedBreach {
		p.breach, _ = err.(*BudgetError)
	}
	p.lastErr = h != happenedClean && (h != happenedBreachedEnd || p.decision != decideWait)
	if p.decision == decideRetry {
		// The rejected output wins no more; its error is the call's if
		// no route gives a valid one.
		p.unwin, p.lastErr = true, true
	}
	p.launch = p.decision.launches()
	return p
}

// launches returns the kind of try that d starts at the call's next
// route, or "" if it starts none there.
func (d decision) launches() AttemptKind {
	switch d {
	case decideFallback, decideRetry, decideRetryRoute:
		return AttemptFallback
	case decideContinue, decideResume:
		return AttemptContinuation
	case decideRestart:
		return AttemptRestart
	case decideHedge:
		return AttemptHedge
	}
	return ""
}

// decide says what a call does about h in situation s.
func decide(h happening, s situation) decision {
	if s.panicked && h != happenedClean {
		return decideFinish
	}
	switch h {
	case happenedClean:
		switch {
		case s.chained:
			return decideFinish
		case s.invalid && s.routesLeft && !s.canceled:
			return decideRetry
		}
		return decideDeliver
	case happenedBroke:
		if s.canceled || s.failFast || !s.cont {
			return decideFinish
		}
		return carryOn(s)
	case happenedEarly:
		if s.resumedEnd {
			// The output broke after its last token: the closing events
			// end the caller's response, and nothing is to carry on.
			return decideDeliver
		}
		return moveOn(s)
	case happenedBreach:
		switch {
		case s.chained && (s.failFast || !s.cont):
			return decideFinish
		case s.chained:
			return carryOn(s)
		case s.failFast && s.live == 0:
			return decideFinish
		case s.failFast:
			return decideWait
		}
		return moveOn(s)
	case happenedBreachedEnd:
		if s.live == 0 && !s.won {
			return moveOn(s)
		}
	case happenedFirst:
		switch {
		case s.carries:
			return decideJoin
		case s.won:
			return decideLose
		}
		return decideWin
	case happenedHedge:
		// Not once a try answered, nor after the caller left or, under
		// FailFast, a try breached: then no other route is tried (a
		// hedge already running may still answer).
		if !s.won && !s.canceled && !s.failedFast {
			return decideHedge
		}
	}
	return decideWait
}

// moveOn decides after a try failed before its output reached the caller:
// wait while another try runs, else go on to the next route.
func moveOn(s situation) decision {
	switch {
	case s.live > 0:
		return decideWait
	case s.canceled:
		return decideCanceled
	case s.failedFast:
		// FailFast waited for the tries that ran at its breach; none is
		// left, and it never moves on.
		return decideFinish
	case s.retryFits && !s.delivered:
		return decideRetryRoute
	case s.delivered:
		return carryOn(s)
	}
	return decideFallback
}

// carryOn decides how a call whose output reached the caller goes on after
// its try broke: resume its stream where the server keeps it, else
// continue that output, or restart when it carries a tool call or audio,
// which no continuation can carry (see toolcall.go).
func carryOn(s situation) decision {
	switch {
	case s.resumable:
		// The server replays what the caller lacks: whatever the output
		// holds, nothing is generated again.
		return decideResume
	case s.restartOnly:
		return decideRestart
	}
	return decideContinue
}

// endOutcome says how a try that the policy did not stop ended: clean, or
// with err while the call's context had ended with cause (nil if it had
// not).
func endOutcome(err, cause error) Outcome {
	switch {
	case err == nil:
		return OutcomeWon
	case errors.Is(cause, ErrSuperseded):
		return OutcomeSuperseded
	case cause != nil || errors.Is(err, ErrStreamClosed) || errors.Is(err, errCallEnded):
		return OutcomeCanceled
	}
	return OutcomeFailed
}

// ctxCause returns the cause of ctx once it ended, else nil.
func ctxCause(ctx context.Context) error {
	if ctx.Err() == nil {
		return nil
	}
	return context.Cause(ctx)
}

package tokenpace

import (
	"context"
	"time"

	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace/internal/codec"
)

// A Router call's events and what it does about them: its start, the
// events of its tries (a first token, a milestone, a probation's commit, a
// breach, an end, the end of a wait in admission) and of its hedge timer,
// each classified and decided (decide.go) and carried out by act, the one
// place that calls down into admission, the chain and probation.

// begin starts a Router call of req; stitch makes a response's tries one
// response (see responsecontinue.go).
func (r *Router) begin(ctx context.Context, req codec.Request, opts []option.RequestOption, stitch bool) *call {
	c := newCall(ctx, r, req, opts)
	if stitch {
		c.out.stitch = new(respStitch)
	}
	c.begin()
	return c
}

// begin starts the first try and, with hedging, the hedge timer; from
// then on the call's tries report their events to onEvent.
func (c *call) begin() {
	c.mu.Lock()
	c.onTry = c.onEvent
	if err := c.set.budget.validate(); err != nil {
		c.finish(err)
	} else if err := ctxErr(c.ctx); err != nil {
		c.finish(err)
	} else if !c.launch(AttemptFirst) {
		c.finish(c.lastErr)
	} else if h := c.r.pol.Hedge; h.enabled() && c.next < c.routeCount() {
		if d := c.hedgeDelay(); d > 0 {
			c.hedge.arm(d, c.onHedge)
		}
	}
	c.unlockAndReport()
}

// onEvent handles an event of tr other than an output chunk as its kind
// says; those that change what the call does are classified and acted on
// through decideAndAct.
func (c *call) onEvent(tr *try, r tryReport) {
	switch r.kind {
	case reportFirst:
		c.onFirst(tr, r.at)
	case reportMilestone:
		c.onMilestone(tr, r.name, r.at, r.failedEnd)
	case reportCommit:
		c.onCommit(tr, r.at)
	case reportBreach:
		c.onBreach(tr, r.breach, r.waited)
	case reportEnd:
		c.onEnd(tr, r.t)
	case reportAdmitted:
		c.onAdmitted(tr)
	}
}

// onAdmitted sends tr once its wait in admission is over, unless the call
// or the try was stopped meanwhile: then tr ends there.
func (c *call) onAdmitted(tr *try) {
	c.mu.Lock()
	if tr.state == tryAdmitting && c.ctx.Err() == nil && c.state == callRunning {
		c.send(tr)
		c.mu.Unlock()
		return
	}
	now := time.Now()
	tr.ticket.unsend(c.code(), now)
	err := tr.cause
	if err == nil {
		err = ctxErr(c.ctx)
	}
	c.endTry(tr, &Timing{Target: tr.rt.Name, Model: c.model(tr.rt), Start: tr.start, End: now, Err: err})
	c.unlockAndReport()
}

// onFirst handles tr's first output token: the first try to produce one
// wins the call and the others are cancelled; a continuation joins the
// chain.
func (c *call) onFirst(tr *try, at time.Time) {
	c.mu.Lock()
	p := c.decideAndAct(tr, tryEvent{stale: !tr.live() || c.state != callRunning, first: true, at: at}, nil)
	report := p.decision == decideWin && tr.chained
	var sent time.Time
	if report {
		sent = c.sent()
	}
	c.mu.Unlock()
	if f := c.hooks.FirstToken; f != nil && report && !c.whole {
		// A whole call's caller sees no token before the whole answer,
		// as Client.New's does not: no FirstToken hook for it.
		f(c.ctx, firstTokenInfo(tr.rt.Name, c.model(tr.rt), sent, at))
	}
}

// onMilestone forwards the milestones of tries whose output the caller
// receives; failedEnd: the milestone was reached at the end of an output
// its server failed.
func (c *call) onMilestone(tr *try, name string, at time.Time, failedEnd bool) {
	if !failedEnd {
		c.probationMilestone(tr, name, at)
	}
	f := c.hooks.Milestone
	if f == nil || c.whole {
		return
	}
	c.mu.Lock()
	in := tr.chained && tr.cause == nil
	if !in && tr.cause == nil && tr.probation.held.Load() {
		// Reported when the held output reaches the caller (heldHooks).
		tr.probation.reached = append(tr.probation.reached, reached{name, at})
	}
	sent := c.sent()
	at = tr.deliveredAt(at)
	c.mu.Unlock()
	if in {
		f(c.ctx, milestoneInfo(tr.rt.Name, c.model(tr.rt), name, sent, at))
	}
}

// onCommit releases tr's held output to the caller at at, if tr is still
// held and still the call's winner, and reports its first token. A
// FirstToken hook that panics ends the call with the panic's error, as
// one that panics on an attempt's reader does.
func (c *call) onCommit(tr *try, at time.Time) {
	c.mu.Lock()
	if !tr.probation.held.Load() || !tr.live() || c.won != tr || tr.chained || c.state != callRunning {
		c.mu.Unlock()
		return
	}
	c.release(tr, at)
	hooks := c.heldHooks(tr, at)
	c.chainUp(tr)
	c.mu.Unlock()
	if perr := hooks(); perr != nil {
		c.mu.Lock()
		c.stop(tr, perr, OutcomeFailed)
		c.finish(perr)
		c.unlockAndReport()
	}
}

// onBreach handles tr exceeding its budget: the try is stopped, then the
// call falls back, continues on the next route, or ends with the error;
// unless tr's answer is complete, which breaches nothing: a deadline that
// passed while the body had yet to end (waited) ends the try cleanly.
func (c *call) onBreach(tr *try, be *BudgetError, waited bool) {
	c.mu.Lock()
	if !tr.live() || c.state != callRunning {
		c.mu.Unlock()
		return
	}
	if tr.a != nil && tr.a.answered() {
		// The answer is complete (every choice finished): a server slow
		// to send [DONE] or close the body breaches nothing, and
		// continuing the answer would add to a finished one; but the
		// caller waits no longer for the body's end.
		tr.watchdog().stop()
		c.mu.Unlock()
		if waited {
			tr.a.endAnswer()
		}
		return
	}
	be.Target = tr.rt.Name
	c.stop(tr, be, OutcomeBreached)
	c.decideAndAct(tr, tryEvent{breach: true, err: be, chained: tr.chained}, be)
	c.unlockAndReport()
}

// onHedge handles the hedge timer: a hedged try starts if no try has
// produced a token yet (see decide).
func (c *call) onHedge() {
	c.mu.Lock()
	// Ended, or re-armed (rearmHedge) while this run of the timer waited
	// for the lock: the re-armed run comes later.
	stale := c.state != callRunning || time.Now().Before(c.hedge.due)
	c.decideAndAct(nil, tryEvent{stale: stale, hedge: true}, nil)
	c.unlockAndReport()
}

// onEnd handles the end of tr's attempt.
func (c *call) onEnd(tr *try, t *Timing) {
	c.mu.Lock()
	c.endTry(tr, t)
	c.unlockAndReport()
}

// endTry records how tr ended, has its route learn from it (its TTFT
// model, its breaker and limiter), and decides what the call does next.
// c.mu is held.
func (c *call) endTry(tr *try, t *Timing) {
	tr.state, tr.t = tryEnded, t
	if tr.a != nil && tr.a.cutWhole() != nil {
		// (A try that ended in admission has no attempt.)
		c.cutWhole = tr.a.cutWhole()
	}
	tr.watchdog().stop()
	if tr.outcome == "" {
		tr.outcome = endOutcome(t.Err, ctxCause(c.ctx))
	}
	clean := t.Err == nil && tr.cause == nil
	e := tryEvent{err: t.Err, cause: tr.cause, chained: tr.chained, buffered: tr == c.won && !tr.chained}
	if t.Err != nil && tr.cause == nil {
		e.retryWait, e.retryFits = c.retryDelay(tr, t)
	}
	c.learnTTFT(tr, t)
	c.endProbation(tr, clean, t.End)
	if c.leaves(tr, t) {
		c.cancelLeft(tr, t.ResponseID)
	}
	if clean {
		c.validate(tr)
	}
	berr := t.Err
	if tr.cause != nil {
		berr = tr.cause
	}
	if be, ok := tr.cause.(*BudgetError); ok && be.Late > 0 {
		berr = errClientLate
	}
	if tr.validErr != nil {
		berr = tr.validErr
	}
	used := -1 // no usage reported
	if t.UsageReported {
		used = t.PromptTokens + t.OutputTokens
	}
	tr.ticket.end(c.code(), berr, time.Now(), used)
	if c.state != callRunning {
		return
	}
	e.outcome = tr.outcome // a validator's verdict included
	err := t.Err
	switch {
	case tr.cause != nil:
		err = tr.cause
	case clean:
		err = tr.validErr
	}
	c.decideAndAct(tr, e, err)
}

// decideAndAct classifies e, an event of tr (nil for the hedge timer's)
// that brought err, decides what the call does (both pure steps), has act
// do it and returns the plan act carried out. c.mu is held.
func (c *call) decideAndAct(tr *try, e tryEvent, err error) plan {
	h := classify(e)
	if h == happenedNothing {
		return plan{}
	}
	if h == happenedEarly && err == nil && (tr.kind == AttemptContinuation && tr.resume == nil || tr.kind == AttemptRestart) {
		// It ended cleanly but carried nothing on: the caller's output is
		// still the broken one (a restart's tool calls incomplete), so the
		// call goes on, or ends, as after a failure.
		err = &StreamError{Kind: KindTruncated, Target: tr.rt.Name, Detail: string(tr.kind) + " ended without output"}
	}
	p := planFor(h, c.situation(h, tr, e, err), err, c.failedFast)
	p.wait, p.at = e.retryWait, e.at
	c.act(tr, p)
	return p
}

// situation returns what the call's decision about h, an event of tr
// that brought err, depends on. A first token and the hedge timer read
// only the few facts their decisions need. c.mu is held.
func (c *call) situation(h happening, tr *try, e tryEvent, err error) situation {
	switch h {
	case happenedFirst:
		return situation{won: c.won != nil, carries: tr.kind == AttemptContinuation || tr.kind == AttemptRestart}
	case happenedHedge:
		return situation{won: c.won != nil, canceled: c.ctx.Err() != nil, failedFast: c.failedFast != nil}
	}
	s := situation{
		chained:     tr.chained,
		buffered:    e.buffered,
		invalid:     tr.validErr != nil,
		failFast:    c.set.failFast,
		panicked:    isPanic(err),
		cont:        c.r.pol.Continue && c.canContinue() && !c.reachedMax() && !policyBlocked(err),
		restartOnly: c.keptRestartOnly() || codec.RestartsOnly(c.req),
		canceled:    c.ctx.Err() != nil,
		live:        c.liveTries(),
		delivered:   len(c.out.tries) > 0,
		routesLeft:  c.next < c.routeCount(),
		retryFits:   e.retryFits,
		failedFast:  c.failedFast != nil,
		won:         c.won != nil,
		winner:      tr == c.won,
	}
	if s.cont && s.delivered && h != happenedClean {
		s.resumable = c.canResume(tr)
	}
	// A resume that ended cleanly before any token replayed only the
	// closing events of a response whose output the caller already has.
	s.resumedEnd = h == happenedEarly && err == nil && tr.resume != nil
	if s.cont && s.delivered && !s.restartOnly && h != happenedClean {
		// Only where the caller's output may be carried on: the requests'
		// bodies are read again for a constraint their parameters do
		// not show (option.WithJSONSet, a middleware's).
		s.restartOnly = c.keptConstrained()
	}
	return s
}

// liveTries counts the tries that run (or wait in admission) and that the
// policy has not stopped.
func (c *call) liveTries() int {
	n := 0
	for _, tr := range c.tries {
		if tr.live() {
			n++
		}
	}
	return n
}

// act carries out plan p about tr (nil for the hedge timer's event): the
// one place where a call changes its state and acts on the events of its
// tries and of its hedge timer. c.mu is held.
func (c *call) act(tr *try, p plan) {
	err := p.err
	c.update(tr, p)
	switch d := p.decision; d {
	case decideFinish:
		c.finish(err)
	case decideCanceled:
		c.finish(ctxErr(c.ctx))
	case decideFallback, decideContinue, decideRestart:
		if c.launch(p.launch) {
			if d == decideFallback {
				c.rearmHedge()
			}
			return
		}
		if d == decideFallback && p.unwin && err != nil && len(c.out.tries) == 0 {
			// The try that won broke, its output held back (RetryInvalid,
			// Probation), and no route is left to answer instead (a hedge
			// took the last): that output is the caller's, with its
			// error, as a Client's caller keeps the text so far; an
			// earlier route's empty answer gives way to it, as it does
			// where that output streams.
			c.deliverBroken(tr, time.Now())
			c.chainUp(tr)
			c.finish(err)
			return
		}
		if d == decideFallback && c.empty != nil && len(c.out.tries) == 0 {
			// A try ended cleanly without an output token (an empty
			// answer, a content filter) and no route is left: that answer
			// is the caller's, as it would be from a Client.
			c.chainUp(c.empty)
			c.finish(nil)
			return
		}
		if d != decideFallback && err != nil {
			// The caller holds output that broke: what ended it is its
			// error, not why no route could carry it on (a breaker open,
			// admission).
			c.finish(err)
			return
		}
		c.finish(c.lastErr)
	case decideRetry:
		if c.launch(p.launch) {
			return
		}
		c.chainUp(tr)
		c.finish(err)
	case decideDeliver:
		c.chainUp(tr)
		c.finish(err)
	case decideResume:
		if c.resume(tr) || c.launch(p.launch) {
			return
		}
		c.finish(err) // as a continuation that cannot start
	case decideRetryRoute:
		if !c.tryRoute(tr.rt, AttemptRetry, p.wait) && !c.launch(p.launch) {
			c.finish(c.lastErr)
		}
	case decideJoin:
		if tr.kind == AttemptRestart {
			c.out.kept = len(c.out.tries)
			c.dropRestarted() // the caller may have taken all it drops
		}
		c.chainUp(tr)
	case decideLose:
		c.stop(tr, errHedgeLost, OutcomeHedgeLost)
	case decideWin:
		c.win(tr, p.at)
	case decideHedge:
		c.hedgeNext(p.launch)
	}
}

// win makes tr, whose first token came at at, the try the caller reads:
// the hedge timer and every other try are stopped. c.mu is held.
func (c *call) win(tr *try, at time.Time) {
	c.won = tr
	c.hedge.stop()
	// Its output is held back until its validation (buffered) or the end
	// of its probation, or reaches the caller from now on.
	held := c.set.buffered || c.holdFirst(tr, at)
	for _, o := range c.tries {
		if o != tr {
			c.stop(o, errHedgeLost, OutcomeHedgeLost)
		}
	}
	if !held {
		c.chainUp(tr)
	}
}

// update records what p says of the call's state, before act carries p
// out: a breach, the try that ended empty, a winner no longer one, the
// first try that failed fast, the error to give when no route is left.
// c.mu is held.
func (c *call) update(tr *try, p plan) {
	if p.breach != nil {
		c.breaches = append(c.breaches, *p.breach)
	}
	if p.empty {
		c.empty = tr
	}
	if p.unwin {
		c.won = nil
	}
	if p.failedFast != nil {
		c.failedFast = p.failedFast
	}
	if p.lastErr {
		c.lastErr = p.err
	}
}

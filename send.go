package tokenpace

import (
	"slices"
	"time"

	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace/internal/codec"
)

// Sending a try: the request it makes at its route, with the route's
// client and options and the budget its attempt enforces, and where its
// attempt's events go.

// send starts tr's attempt, which enforces the try's budget with a
// watchdog of its own. c.mu is held.
func (c *call) send(tr *try) {
	ev := c.reporters(tr)
	rt := tr.rt
	var cont *codec.Continuation
	if tr.kind == AttemptContinuation && tr.resume == nil {
		cont = c.continuation()
	}
	client, opts := c.clientFor(rt)
	opts = c.followServer(tr, opts)
	if c.next < c.routeCount() {
		// There is somewhere to fall back to: the Router, not openai-go,
		// decides whether to retry (see retryDelay).
		tr.ownRetries = true
		opts = append(slices.Clip(opts), option.WithMaxRetries(0))
	}
	req := c.req.For(c.model(rt), cont)
	if tr.resume != nil {
		req = tr.resume
	}
	now := time.Now()
	if c.firstSend.IsZero() {
		c.firstSend = now
	}
	spec := attemptSpec{client: client, name: rt.Name, req: req, opts: opts, cfg: &c.r.c.cfg,
		start: tr.start, whole: c.whole, unbounded: c.set.buffered, cont: cont,
		budget: tryBudget{b: c.budgetFor(rt), gapFirst: tr.resume != nil,
			commitTokens: c.r.pol.Probation.Tokens, start: now, firstSend: c.firstSend}}
	// A breach waits for c.mu, held until tr.a is set.
	tr.state = tryRunning
	tr.a = startAttempt(c.ctx, spec, ev)
}

// reporters returns what tr's attempt calls on its events: an output
// chunk goes to onOutput, every other event (a breach of its budget too)
// to the call's handler.
func (c *call) reporters(tr *try) attemptEvents {
	return attemptEvents{
		firstToken: func(_ *attempt, at time.Time) { c.onTry(tr, tryReport{kind: reportFirst, at: at}) },
		output:     func(a *attempt, at time.Time, tokens int) { c.onOutput(tr, a, at, tokens) },
		milestone: func(a *attempt, name string, at time.Time) {
			c.onTry(tr, tryReport{kind: reportMilestone, at: at, name: name, failedEnd: a.failedEnd})
		},
		end: func(_ *attempt, t *Timing) { c.onTry(tr, tryReport{kind: reportEnd, t: t}) },
		breach: func(_ *attempt, b BudgetError, waited bool) {
			c.onTry(tr, tryReport{kind: reportBreach, breach: &b, waited: waited})
		},
	}
}

// onOutput handles an output chunk of tr, whose attempt is a, that
// arrived at at, the per-chunk path: the watchdog's check and probation's
// count, without a lock of the call (the caller is woken by the attempt
// itself, once per read of the body).
func (c *call) onOutput(tr *try, a *attempt, at time.Time, tokens int) {
	a.w.token(at, tokens)
	c.probationOutput(tr, at, tokens)
}

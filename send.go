package tokenpace

import (
	"cmp"
	"slices"
	"time"

	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace/internal/codec"
)

// Sending a try: the request it makes at its route, with the route's
// client and options, the watchdog of its budget, and where its
// attempt's events go.

// send starts tr's attempt and its watchdog. c.mu is held.
func (c *call) send(tr *try) {
	ev, breached := c.reporters(tr)
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
	spec := attemptSpec{client: client, name: rt.Name, req: req, opts: opts, cfg: &c.r.c.cfg,
		start: tr.start, whole: c.whole, unbounded: c.set.buffered, cont: cont}
	// The watchdog is set before the attempt starts, so that its events
	// read tr.w without a lock; a breach waits for c.mu, held until tr.a
	// is set.
	now := time.Now()
	if c.firstSend.IsZero() {
		c.firstSend = now
	}
	if b := c.budgetFor(rt); !b.isZero() {
		if tr.resume != nil {
			b = b.forResume()
		}
		if p := c.r.pol.Probation.Tokens; p > 0 && b.MinTPS > 0 {
			// Check MinTPS by the commit at the latest (Probation.Tokens).
			b.Warmup = min(cmp.Or(b.Warmup, defaultWarmup), p)
		}
		tr.w = newWatchdog(b, now, c.firstSend, breached)
	}
	tr.state = tryRunning
	tr.a = startAttempt(c.ctx, spec, ev)
}

// reporters returns what tr's attempt and watchdog call on their events:
// an output chunk goes to onOutput, every other event to the call's
// handler.
func (c *call) reporters(tr *try) (attemptEvents, func(BudgetError, bool)) {
	ev := attemptEvents{
		firstToken: func(_ *attempt, at time.Time) { c.onTry(tr, tryReport{kind: reportFirst, at: at}) },
		output:     func(_ *attempt, at time.Time, tokens int) { c.onOutput(tr, at, tokens) },
		milestone: func(_ *attempt, name string, at time.Time) {
			c.onTry(tr, tryReport{kind: reportMilestone, at: at, name: name})
		},
		end: func(_ *attempt, t *Timing) { c.onTry(tr, tryReport{kind: reportEnd, t: t}) },
	}
	breached := func(b BudgetError, waited bool) {
		c.onTry(tr, tryReport{kind: reportBreach, breach: &b, waited: waited})
	}
	return ev, breached
}

// onOutput handles an output chunk of tr that arrived at at, the per-chunk
// path: the watchdog's check and probation's count, without a lock of the
// call (the caller is woken by the attempt itself, once per read of the
// body).
func (c *call) onOutput(tr *try, at time.Time, tokens int) {
	tr.w.token(at, tokens)
	c.probationOutput(tr, at, tokens)
}

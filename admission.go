package tokenpace

import (
	"context"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace/internal/codec"
	"github.com/tokenpace/tokenpace/internal/ttft"
)

// promptTokens returns the estimated prompt tokens of the call.
func (c *call) promptTokens() int {
	if c.prompt < 0 {
		c.prompt = estimateTokens(c.params.Messages)
	}
	return c.prompt
}

// launch starts a try at the next route that admits the call, recording
// the routes it skips, and reports whether one started (or waits in
// admission). c.mu is held.
func (c *call) launch(kind AttemptKind) bool {
	for c.next < c.routeCount() {
		if c.state != callRunning || c.ctx.Err() != nil {
			return false
		}
		if c.code().closed() {
			// The caller closed the stream while code of its own held
			// the call (see callerCode): the call ends as Close says.
			c.lastErr = ErrStreamClosed
			return false
		}
		rt := c.routeAt(c.next)
		c.next++
		if c.tryRoute(rt, kind, 0) {
			return true
		}
		if kind == AttemptFirst {
			kind = AttemptFallback // the next route stands in for a skipped one
		}
	}
	return false
}

// tryRoute starts a try of kind at rt, sent no sooner than after wait, and
// reports whether admission let it through; if not, the try is recorded
// as skipped. c.mu is held.
func (c *call) tryRoute(rt *route, kind AttemptKind, wait time.Duration) bool {
	return c.tryOut(&try{rt: rt, kind: kind, start: time.Now()}, wait)
}

// tryOut starts tr, a new try, as tryRoute does: it carries out what
// admission decided of it. c.mu is held.
func (c *call) tryOut(tr *try, wait time.Duration) bool {
	c.tries = append(c.tries, tr)
	d := c.admission(tr, wait)
	if d.err != nil {
		c.refuse(tr, d)
		return false
	}
	if d.delay > 0 {
		tr.stopped = make(chan struct{})
		go c.await(tr, d.delay)
	} else {
		c.send(tr)
	}
	return true
}

// admitPlan is what admission decided of a try: send it now (the zero
// value), after delay, or not at all (err).
type admitPlan struct {
	delay time.Duration // how long the try waits in admission before it is sent
	// err is why the try is not sent; nil when it is.
	err     error
	outcome Outcome   // of a try not sent
	end     time.Time // when a try not sent ended
	// spent: the call's E2E budget ran out; err is the call's error only
	// if it has none yet.
	spent bool
	// unsend: the try holds a ticket its route must be given back, as
	// for a request that was not sent (see ticket.unsend).
	unsend bool
}

// admission decides whether tr, a new try, is sent, and when: not when
// the call's E2E budget has run out, nor when its route refuses it or its
// wait would break its TTFT budget; else now, or once the wait that
// admission sets, and no less than wait, is over. It keeps the ticket the
// route gave tr. c.mu is held.
func (c *call) admission(tr *try, wait time.Duration) admitPlan {
	rt, now := tr.rt, tr.start
	skipped := &StreamError{Kind: KindSkipped, Target: rt.Name, Err: ErrAdmission}
	if c.spent(rt, now) {
		// A request now would be cut at once, and counted against a
		// route that was never given a chance. The call ends with what
		// spent it.
		return admitPlan{err: skipped, outcome: OutcomeSkipped, end: now, spent: true}
	}
	ramp := c.r.pol.Breaker.Ramp
	if c.next == c.routeCount() {
		ramp = 0 // the call's last route always takes it
	}
	tokens := 0
	if rt.limited() {
		tokens = c.requestTokens()
	}
	tk, err := rt.admit(c.code(), now, tokens, ramp)
	tr.ticket = tk
	switch {
	case err == errWaitGivenUp:
		// The caller's code held admission up past the caller's wait:
		// the call ends as its context or Close says.
		return admitPlan{err: c.code().givenUp(), outcome: OutcomeCanceled, end: time.Now()}
	case err != nil:
		return admitPlan{err: err, outcome: OutcomeSkipped, end: now}
	}
	delay := max(tk.delay, wait)
	if !c.fits(rt, delay) {
		return admitPlan{err: skipped, outcome: OutcomeSkipped, end: now, unsend: true}
	}
	return admitPlan{delay: delay}
}

// refuse ends tr, a try that admission did not let through as d says:
// a skipped route takes no time. c.mu is held.
func (c *call) refuse(tr *try, d admitPlan) {
	if !d.spent || c.lastErr == nil {
		c.lastErr = d.err
	}
	tr.state, tr.outcome = tryEnded, d.outcome
	tr.t = &Timing{Target: tr.rt.Name, Model: c.model(tr.rt), Start: tr.start, End: d.end, Err: d.err}
	if d.unsend {
		tr.ticket.unsend(c.code(), tr.start)
	}
}

// spent reports whether the call's E2E budget, as rt's merged budget
// gives it, ran out by now. c.mu is held.
func (c *call) spent(rt *route, now time.Time) bool {
	e2e := c.budgetFor(rt).E2E
	return e2e > 0 && !c.firstSend.IsZero() && !now.Before(c.firstSend.Add(e2e))
}

// requestTokens returns the tokens a request of the call counts against
// a rate limit: its estimated prompt plus its max_tokens.
func (c *call) requestTokens() int {
	tokens := c.promptTokens()
	if c.params.MaxTokens.Valid() {
		tokens += int(c.params.MaxTokens.Value)
	} else if c.params.MaxCompletionTokens.Valid() {
		tokens += int(c.params.MaxCompletionTokens.Value)
	}
	return tokens
}

// fits reports whether a try at rt that waits delay in admission can
// still produce its first token within its TTFT budget, by the route's
// learnt TTFT for the call's prompt (none before the route has data).
// Without a TTFT budget, or on the last route (where the call waits rather
// than fail), it does. c.mu is held.
func (c *call) fits(rt *route, delay time.Duration) bool {
	b := c.budgetFor(rt)
	if b.TTFT <= 0 || c.next == c.routeCount() {
		return true
	}
	pred, _ := c.ttftModel(rt).Predict(c.promptTokens()) // 0 without data
	return delay+pred <= b.TTFT
}

// ttftModel returns what rt learnt of the calls like c: the time to the
// first token of streaming calls, to the whole answer of the others.
func (c *call) ttftModel(rt *route) *ttft.Model {
	if c.whole {
		return &rt.whole
	}
	return &rt.pred
}

// learnTTFT has the TTFT model of tr's route learn the time to the first
// token of tr, which ended with t: of its prompt tokens that missed the
// server's cache, or of the call's estimated prompt without usage. A
// continuation's first token says nothing of a prompt's. c.mu is held.
func (c *call) learnTTFT(tr *try, t *Timing) {
	ttft := t.TTFT()
	if ttft <= 0 || tr.kind == AttemptContinuation {
		return
	}
	p := t.PromptTokens - t.CachedTokens
	if !t.UsageReported {
		p = c.promptTokens()
	}
	c.ttftModel(tr.rt).Observe(p, ttft)
}

// retryDelay returns how long to wait before trying tr's route again
// after it failed before its first token, and false when the Router
// should move on instead: only a route the Router retries itself (one
// with a fallback), whose response asked for a wait (Retry-After) that,
// with the route's learnt TTFT, still fits the call's TTFT budget. c.mu is
// held.
func (c *call) retryDelay(tr *try, t *Timing) (time.Duration, bool) {
	b := c.budgetFor(tr.rt)
	if !tr.ownRetries || b.TTFT <= 0 || len(t.HTTP) == 0 || len(t.Chunks) > 0 {
		return 0, false
	}
	wait := t.HTTP[len(t.HTTP)-1].RetryAfter
	if wait <= 0 {
		return 0, false
	}
	pred, _ := c.ttftModel(tr.rt).Predict(c.promptTokens())
	return wait, time.Since(c.firstSend)+wait+pred <= b.TTFT
}

// await reports to the call that tr's limiter delay has passed, or that
// the call or the try was stopped meanwhile (see onAdmitted).
func (c *call) await(tr *try, delay time.Duration) {
	t := time.NewTimer(delay)
	defer t.Stop()
	select {
	case <-t.C:
	case <-tr.stopped:
	case <-c.ctx.Done():
	}
	c.onTry(tr, tryReport{kind: reportAdmitted})
}

// budgetFor returns the budget of a try at rt.
func (c *call) budgetFor(rt *route) Budget { return c.set.budget.merge(rt.budget) }

// settingsFor returns the settings of a call made with ctx (see
// ContextWithCallPolicy).
func (r *Router) settingsFor(ctx context.Context) callSettings {
	s := callSettings{failFast: r.pol.FailFast}
	if cp, ok := ctx.Value(callPolicyKey{}).(CallPolicy); ok {
		s.budget = cp.Budget
		s.failFast = s.failFast || cp.FailFast
		s.validator = cp.Validator
	}
	validating := s.validator != nil || r.pol.Validator != nil
	for _, rt := range r.routes {
		validating = validating || rt.Validator != nil
	}
	s.buffered = validating && r.pol.RetryInvalid
	s.keepText = r.pol.Continue || (validating && !s.buffered)
	return s
}

// newCall makes a Router call of req, with the policy of ctx (see
// ContextWithCallPolicy) over the Router's.
func newCall(ctx context.Context, r *Router, req codec.Request, opts []option.RequestOption) *call {
	c := &call{
		r: r, ctx: ctx, req: req, params: req.View(), opts: opts,
		hooks:  r.c.cfg.hooksFor(ctx),
		start:  time.Now(),
		set:    r.settingsFor(ctx),
		prompt: -1,
		bytes:  -1,
		wake:   make(chan struct{}, 1),
		done:   make(chan struct{}),
	}
	c.closing.ch = make(chan struct{})
	c.aff = r.affinityFor(ctx, req, c.params.Messages)
	return c
}

// estimateTokens estimates the prompt tokens of messages at four bytes of
// text a token, the usual rule for English with BPE tokenizers (content
// that is not text counts by its JSON).
func estimateTokens(messages []openai.ChatCompletionMessageParamUnion) int {
	n, _ := codec.MessageBytes(messages)
	return (n + 3) / 4
}

package tokenpace

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// Internal causes with which a call stops an attempt.
var (
	errHedgeLost = errors.New("tokenpace: another hedged attempt produced a token first")
	errCallEnded = errors.New("tokenpace: the call ended")
)

// call is the source of a Router call. It starts tries (one attempt at one
// route each), watches their events, stops the losers and hands the
// winners' chunks to the Stream in order: its chain holds the tries whose
// output the caller receives, one after the other (more than one only after
// a continuation). Every decision is taken under mu, in the attempts'
// events and timers, so that how fast the caller reads never changes what
// happens.
type call struct {
	r      *Router
	ctx    context.Context
	params openai.ChatCompletionNewParams
	opts   []option.RequestOption
	hooks  Hooks
	start  time.Time

	budget    Budget // the call's override
	failFast  bool
	validator Validator // nil: each route's
	buffered  bool      // outputs reach the caller once validated
	keepText  bool      // the chain's text is kept (continuation, validation)
	prompt    int       // estimated prompt tokens; -1 until needed

	mu       sync.Mutex
	tries    []*try
	next     int  // index of the next route to try
	won      *try // the try that produced the call's first token
	chain    []*try
	out      int // index in chain of the try the caller reads
	finished bool
	err      error
	lastErr  error
	final    *Timing
	breaches []Breach
	invalid  bool
	text     strings.Builder // the chain's content the caller has taken
	id       string          // the completion id the caller sees
	hedge    *time.Timer
	hedges   int
	waiting  bool
	wake     chan struct{}
	quit     chan struct{} // closed when the call finishes
	done     chan struct{} // closed once Done has been reported
}

// try is one attempt, or one skipped route, within a call.
type try struct {
	rt      *route
	kind    AttemptKind
	start   time.Time
	a       *attempt // nil until sent, and for a skipped route
	w       *watchdog
	brDone  func(error)
	stopped chan struct{} // closed when the policy stops a try still in admission
	res     reservation

	cause    error // why the policy stopped it; nil if it did not
	outcome  Outcome
	inChain  bool
	ended    bool
	t        *Timing // final, once ended
	validErr error

	// Once cut, only the first limit chunks (outLimit output-bearing ones)
	// reach the caller: the policy stopped the try and the continuation
	// carries on from exactly that output.
	cut             bool
	limit, outLimit int
	taken           int // chunks handed to the caller
}

func newCall(ctx context.Context, r *Router, params openai.ChatCompletionNewParams, opts []option.RequestOption) *call {
	c := &call{
		r: r, ctx: ctx, params: params, opts: opts,
		hooks:    r.c.cfg.hooksFor(ctx),
		start:    time.Now(),
		failFast: r.pol.FailFast,
		prompt:   -1,
		wake:     make(chan struct{}, 1),
		quit:     make(chan struct{}),
		done:     make(chan struct{}),
	}
	if cp, ok := ctx.Value(callPolicyKey{}).(CallPolicy); ok {
		c.budget = cp.Budget
		c.failFast = c.failFast || cp.FailFast
		c.validator = cp.Validator
	}
	validating := c.validator != nil || r.pol.Validator != nil
	for _, rt := range r.routes {
		validating = validating || rt.Validator != nil
	}
	c.buffered = validating && r.pol.RetryInvalid
	c.keepText = r.pol.Continue || (validating && !c.buffered)
	return c
}

// begin starts the first try and, with hedging, the hedge timer.
func (c *call) begin() {
	c.mu.Lock()
	if err := c.budget.validate(); err != nil {
		c.finish(err)
	} else if err := c.ctx.Err(); err != nil {
		c.finish(err)
	} else if !c.launch(AttemptFirst) {
		c.finish(c.lastErr)
	} else if h := c.r.pol.Hedge; h.enabled() && c.next < len(c.r.routes) {
		c.armHedge()
	}
	fin := c.takeFinal()
	c.mu.Unlock()
	c.report(fin)
}

// budgetFor returns the budget of a try at rt.
func (c *call) budgetFor(rt *route) Budget { return c.budget.merge(rt.budget) }

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
	for c.next < len(c.r.routes) {
		if c.finished || c.ctx.Err() != nil {
			return false
		}
		rt := c.r.routes[c.next]
		c.next++
		now := time.Now()
		tr := &try{rt: rt, kind: kind, start: now}
		c.tries = append(c.tries, tr)
		if err := c.admit(tr, now); err != nil {
			c.lastErr = err
			tr.ended, tr.outcome = true, OutcomeSkipped
			tr.t = &Timing{Target: rt.Name, Model: c.model(rt), Start: now, End: now, Err: err}
			if kind == AttemptFirst {
				kind = AttemptFallback // the next route stands in for a skipped one
			}
			continue
		}
		return true
	}
	return false
}

// admit asks rt's breaker and limiter to let tr through, and sends it at
// once or after the limiter's delay. c.mu is held.
func (c *call) admit(tr *try, now time.Time) error {
	rt := tr.rt
	if rt.br != nil {
		done, err := rt.br.Allow()
		if err != nil {
			return &SkipError{Target: rt.Name, Err: ErrCircuitOpen}
		}
		tr.brDone = done
	}
	var delay time.Duration
	if rt.limited() {
		tokens := c.promptTokens()
		if c.params.MaxTokens.Valid() {
			tokens += int(c.params.MaxTokens.Value)
		} else if c.params.MaxCompletionTokens.Valid() {
			tokens += int(c.params.MaxCompletionTokens.Value)
		}
		res, d, ok := rt.reserve(now, tokens)
		last := c.next == len(c.r.routes)
		if !ok {
			c.notSent(tr)
			return &SkipError{Target: rt.Name, Err: ErrAdmission}
		}
		if b := c.budgetFor(rt); b.TTFT > 0 && !last {
			pred, _ := rt.pred.predict(c.promptTokens())
			if d+pred > b.TTFT {
				res.cancel(now)
				c.notSent(tr)
				return &SkipError{Target: rt.Name, Err: ErrAdmission}
			}
		}
		tr.res, delay = res, d
	}
	if delay <= 0 {
		c.send(tr)
		return nil
	}
	tr.stopped = make(chan struct{})
	go c.await(tr, delay)
	return nil
}

// notSent tells tr's breaker that the request it allowed never left.
func (c *call) notSent(tr *try) {
	if tr.brDone != nil {
		tr.brDone(errNotSent)
		tr.brDone = nil
	}
}

// await sends tr once its limiter delay has passed, unless the call or the
// try was stopped meanwhile.
func (c *call) await(tr *try, delay time.Duration) {
	t := time.NewTimer(delay)
	defer t.Stop()
	select {
	case <-t.C:
	case <-tr.stopped:
	case <-c.ctx.Done():
	}
	c.mu.Lock()
	if tr.cause == nil && c.ctx.Err() == nil && !c.finished {
		c.send(tr)
		c.mu.Unlock()
		return
	}
	now := time.Now()
	tr.res.cancel(now)
	c.notSent(tr)
	err := tr.cause
	if err == nil {
		err = c.ctx.Err()
	}
	c.endTry(tr, &Timing{Target: tr.rt.Name, Model: c.model(tr.rt), Start: tr.start, End: now, Err: err})
	fin := c.takeFinal()
	c.mu.Unlock()
	c.report(fin)
}

// model returns the model a try at rt asks for.
func (c *call) model(rt *route) string {
	if rt.Model != "" {
		return rt.Model
	}
	return c.params.Model
}

// send starts tr's attempt and its watchdog. c.mu is held.
func (c *call) send(tr *try) {
	rt := tr.rt
	params := c.params
	params.Model = c.model(rt)
	if tr.kind == AttemptContinuation {
		params = c.continuation(params)
	}
	client := rt.Client
	if client == nil {
		client = &c.r.c.oc
	}
	opts := c.opts
	if len(rt.Options) > 0 {
		opts = append(slices.Clip(opts), rt.Options...)
	}
	spec := attemptSpec{client: client, name: rt.Name, params: params, opts: opts, cfg: &c.r.c.cfg, start: tr.start}
	// The watchdog is set before the attempt starts, so that its events
	// read tr.w without a lock; a breach waits for c.mu, held until tr.a
	// is set.
	if b := c.budgetFor(rt); !b.IsZero() {
		tr.w = newWatchdog(b, time.Now(), func(br Breach) { c.onBreach(tr, br) })
	}
	tr.a = startAttempt(c.ctx, spec, attemptEvents{
		firstToken: func(a *attempt, at time.Time) { c.onFirst(tr, a, at) },
		output:     func(_ *attempt, at time.Time) { c.onOutput(tr, at) },
		milestone:  func(a *attempt, name string, at time.Time) { c.onMilestone(tr, a, name, at) },
		end:        func(_ *attempt, t *Timing) { c.onEnd(tr, t) },
	})
}

// live counts the tries that run (or wait in admission) and that the
// policy has not stopped.
func (c *call) live() int {
	n := 0
	for _, tr := range c.tries {
		if !tr.ended && tr.cause == nil {
			n++
		}
	}
	return n
}

// stop cancels tr with cause, recording outcome; from now on only the
// chunks that arrived so far can reach the caller. c.mu is held.
func (c *call) stop(tr *try, cause error, outcome Outcome) {
	if tr.ended || tr.cause != nil {
		return
	}
	tr.cause, tr.outcome = cause, outcome
	tr.w.stop()
	if tr.a == nil {
		close(tr.stopped)
		return
	}
	a := tr.a
	a.mu.Lock()
	tr.cut = true
	tr.limit = tr.taken + len(a.pending)
	tr.outLimit = len(a.t.Chunks)
	a.mu.Unlock()
	a.cancel(cause)
}

// signal wakes the caller if it waits for a change of the call (a try
// joined the chain, the call finished). c.mu is held. The caller may have
// been woken by its attempt meanwhile, leaving a token here: it then wakes
// once for nothing, and looks again.
func (c *call) signal() {
	if c.waiting {
		c.waiting = false
		select {
		case c.wake <- struct{}{}:
		default:
		}
	}
}

// onFirst handles tr's first output token: the first try to produce one
// wins the call and the others are cancelled; a continuation joins the
// chain.
func (c *call) onFirst(tr *try, a *attempt, at time.Time) {
	c.mu.Lock()
	if tr.cause != nil || c.finished {
		c.mu.Unlock()
		return
	}
	if tr.kind == AttemptContinuation {
		tr.inChain = true
		c.chain = append(c.chain, tr)
		c.signal()
		c.mu.Unlock()
		return
	}
	if c.won != nil {
		c.stop(tr, errHedgeLost, OutcomeHedgeLost)
		c.mu.Unlock()
		return
	}
	c.won = tr
	if c.hedge != nil {
		c.hedge.Stop()
	}
	for _, o := range c.tries {
		if o != tr {
			c.stop(o, errHedgeLost, OutcomeHedgeLost)
		}
	}
	report := !c.buffered
	if report {
		tr.inChain = true
		c.chain = append(c.chain, tr)
		c.signal()
	}
	c.mu.Unlock()
	if f := c.hooks.FirstToken; f != nil && report {
		f(c.ctx, FirstTokenInfo{Target: tr.rt.Name, Model: a.spec.params.Model, At: at, TTFT: since(a.sent(), at)})
	}
}

// onOutput handles an output-bearing chunk of tr: the watchdog's check,
// without a lock of the call. The caller is woken by the attempt itself,
// once per read of the body.
func (c *call) onOutput(tr *try, at time.Time) { tr.w.token(at) }

// onMilestone forwards the milestones of tries whose output the caller
// receives.
func (c *call) onMilestone(tr *try, a *attempt, name string, at time.Time) {
	f := c.hooks.Milestone
	if f == nil {
		return
	}
	c.mu.Lock()
	in := tr.inChain && !tr.cut
	c.mu.Unlock()
	if in {
		f(c.ctx, MilestoneInfo{Target: tr.rt.Name, Model: a.spec.params.Model, Name: name, At: at, Elapsed: since(a.sent(), at)})
	}
}

// onBreach handles tr exceeding its budget: the try is stopped, then the
// call falls back, continues on the next route, or ends with the error.
func (c *call) onBreach(tr *try, b Breach) {
	c.mu.Lock()
	if tr.ended || tr.cause != nil || c.finished {
		c.mu.Unlock()
		return
	}
	b.Target = tr.rt.Name
	c.breaches = append(c.breaches, b)
	be := &BudgetError{Target: b.Target, Phase: b.Phase, Limit: b.Limit, Observed: b.Observed}
	c.stop(tr, be, OutcomeBreached)
	c.lastErr = be
	if tr == c.won && !tr.inChain {
		c.won = nil
	}
	switch {
	case tr.inChain:
		if c.failFast || !c.r.pol.Continue || !c.launch(AttemptContinuation) {
			c.finish(be)
		}
	case c.failFast:
		if c.live() == 0 {
			c.finish(be)
		}
	default:
		c.moveOn(be)
	}
	fin := c.takeFinal()
	c.mu.Unlock()
	c.report(fin)
}

// moveOn starts the next route after a try failed before its output
// reached the caller, unless another try is still running; with no route
// left the call ends with err. c.mu is held.
func (c *call) moveOn(err error) {
	c.lastErr = err
	if c.finished || c.live() > 0 {
		return
	}
	if c.ctx.Err() != nil {
		c.finish(c.ctx.Err())
		return
	}
	kind := AttemptFallback
	if len(c.chain) > 0 {
		// The caller has output already: the next try carries it on.
		kind = AttemptContinuation
	}
	if !c.launch(kind) {
		c.finish(c.lastErr)
	}
}

// onEnd handles the end of tr's attempt.
func (c *call) onEnd(tr *try, t *Timing) {
	c.mu.Lock()
	c.endTry(tr, t)
	fin := c.takeFinal()
	c.mu.Unlock()
	c.report(fin)
}

// endTry records how tr ended, reports it to its breaker and TTFT model,
// and decides what the call does next. c.mu is held.
func (c *call) endTry(tr *try, t *Timing) {
	tr.ended, tr.t = true, t
	tr.w.stop()
	err := t.Err
	clean := err == nil && tr.cause == nil
	if tr.outcome == "" {
		switch {
		case clean:
			tr.outcome = OutcomeWon
		case c.ctx.Err() != nil && errors.Is(context.Cause(c.ctx), ErrSuperseded):
			tr.outcome = OutcomeSuperseded
		case c.ctx.Err() != nil || errors.Is(err, ErrStreamClosed) || errors.Is(err, errCallEnded):
			tr.outcome = OutcomeCanceled
		default:
			tr.outcome = OutcomeFailed
		}
	}
	if clean {
		c.validate(tr)
	}
	if tr.brDone != nil {
		berr := err
		if tr.cause != nil {
			berr = tr.cause
		}
		if tr.validErr != nil {
			berr = tr.validErr
		}
		tr.brDone(berr)
		tr.brDone = nil
	}
	if ttft := t.TTFT(); ttft > 0 && tr.kind != AttemptContinuation {
		p := t.PromptTokens - t.CachedTokens
		if !t.UsageReported {
			p = c.promptTokens()
		}
		tr.rt.pred.observe(p, ttft)
	}
	if c.finished {
		return
	}
	switch {
	case tr.inChain && clean:
		c.finish(tr.validErr)
	case tr.inChain && tr.cause == nil:
		// The stream broke after its output began.
		c.lastErr = err
		if c.ctx.Err() != nil || c.failFast || !c.r.pol.Continue || !c.launch(AttemptContinuation) {
			c.finish(err)
		}
	case tr == c.won && clean:
		// Buffered: the output reaches the caller once validated.
		if tr.validErr != nil && c.next < len(c.r.routes) && c.ctx.Err() == nil {
			c.won = nil
			c.lastErr = tr.validErr
			if c.launch(AttemptFallback) {
				return
			}
		}
		tr.inChain = true
		c.chain = append(c.chain, tr)
		c.finish(tr.validErr)
	case tr.cause == nil:
		// Failed before any of its output reached the caller.
		if tr == c.won {
			c.won = nil
		}
		c.moveOn(err)
	case tr.outcome == OutcomeBreached && c.live() == 0 && c.won == nil:
		c.moveOn(tr.cause)
	}
}

// validate runs the validator on tr's finished output. c.mu is held.
func (c *call) validate(tr *try) {
	v := c.validator
	if v == nil {
		v = tr.rt.Validator
	}
	if v == nil {
		v = c.r.pol.Validator
	}
	if v == nil {
		return
	}
	var text string
	if c.buffered {
		var b strings.Builder
		tr.a.mu.Lock()
		appendContent(&b, tr.a.pending)
		tr.a.mu.Unlock()
		text = b.String()
	} else {
		text = c.chainText()
	}
	if err := v(text); err != nil {
		tr.validErr = &ValidationError{Target: tr.rt.Name, Err: err}
		tr.outcome = OutcomeInvalid
	}
}

// chainText returns the content of the first choice the chain has produced
// so far: what the caller took and what waits for it. c.mu is held.
func (c *call) chainText() string {
	var b strings.Builder
	b.WriteString(c.text.String())
	for _, tr := range c.chain[c.out:] {
		tr.a.mu.Lock()
		p := tr.a.pending
		if tr.cut {
			p = p[:min(len(p), max(tr.limit-tr.taken, 0))]
		}
		appendContent(&b, p)
		tr.a.mu.Unlock()
	}
	return b.String()
}

// appendContent appends the content of the first choice of chunks to b.
func appendContent(b *strings.Builder, chunks []arrived) {
	for i := range chunks {
		for j := range chunks[i].chunk.Choices {
			if ch := &chunks[i].chunk.Choices[j]; ch.Index == 0 {
				b.WriteString(ch.Delta.Content)
			}
		}
	}
}

// finish ends the call with err: no try starts after it and the running
// ones are stopped. The final Timing follows once every try has ended.
// c.mu is held.
func (c *call) finish(err error) {
	c.finishCause(err, errCallEnded)
}

func (c *call) finishCause(err, cause error) {
	if c.finished {
		return
	}
	c.finished, c.err = true, err
	var ve *ValidationError
	c.invalid = errors.As(err, &ve)
	close(c.quit)
	if c.hedge != nil {
		c.hedge.Stop()
	}
	for _, tr := range c.tries {
		if !tr.inChain || cause == ErrStreamClosed {
			c.stop(tr, cause, OutcomeCanceled)
		}
	}
	c.signal()
}

// takeFinal builds the final Timing once the call has finished and every
// try has ended, and returns it the first time. c.mu is held.
func (c *call) takeFinal() *Timing {
	if !c.finished || c.final != nil {
		return nil
	}
	for _, tr := range c.tries {
		if !tr.ended {
			return nil
		}
	}
	c.final = c.build()
	c.signal()
	return c.final
}

// report hands the final Timing to the Done hooks, if fin is it.
func (c *call) report(fin *Timing) {
	if fin == nil {
		return
	}
	if f := c.hooks.Done; f != nil {
		f(c.ctx, fin)
	}
	close(c.done)
}

// take implements source.
func (c *call) take(buf []arrived) ([]arrived, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		var aw chan struct{} // the wake-up of the attempt the caller reads
		if c.out < len(c.chain) {
			tr := c.chain[c.out]
			batch, done := c.grab(tr, buf)
			if len(batch) > 0 {
				return batch, nil
			}
			if done {
				c.out++
				continue
			}
			aw = tr.a.wake
		} else if c.final != nil {
			return nil, c.err
		}
		c.waiting = true
		c.mu.Unlock()
		select {
		case <-c.wake:
		case <-aw:
		}
		c.mu.Lock()
	}
}

// grab hands over the chunks of tr that the caller has not taken, as far
// as the policy lets them through, and reports when there will be no more.
// c.mu is held.
func (c *call) grab(tr *try, buf []arrived) ([]arrived, bool) {
	a := tr.a
	a.mu.Lock()
	// The attempt signals its wake-up (under a.mu) while a.waiting; clear
	// a token left by a wake-up the caller did not need, so that the next
	// signal never blocks.
	a.waiting = false
	select {
	case <-a.wake:
	default:
	}
	p := a.pending
	done := a.ended
	if tr.cut {
		n := max(tr.limit-tr.taken, 0)
		if len(p) > n {
			p = p[:n]
		}
		done = done || n == 0
	}
	if len(p) == 0 {
		a.waiting = !done
		a.mu.Unlock()
		return nil, done
	}
	a.pending = buf[:0]
	a.mu.Unlock()
	tr.taken += len(p)
	if c.out == 0 {
		if c.id == "" {
			c.id = p[0].chunk.ID
		}
	} else {
		// A continuation carries on the caller's completion: same id.
		for i := range p {
			p[i].chunk.ID = c.id
		}
	}
	if c.keepText {
		appendContent(&c.text, p)
	}
	return p, false
}

// timing implements source.
func (c *call) timing() *Timing {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.final != nil {
		return c.final
	}
	return c.build()
}

// close implements source.
func (c *call) close() {
	c.mu.Lock()
	c.finishCause(ErrStreamClosed, ErrStreamClosed)
	fin := c.takeFinal()
	c.mu.Unlock()
	c.report(fin)
	<-c.done
}

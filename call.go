package tokenpace

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace/internal/codec"
)

// chain is what the caller of a call reads: the tries whose output it
// receives, one after the other (more than one only after a continuation
// or a restart), and what it has taken of them.
type chain struct {
	tries []*try
	at    int // index in tries of the try the caller reads
	// kept is the index in tries of the first try whose output the
	// caller keeps: that of the last restart (see toolcall.go), else 0.
	kept int
	// restartBatch: the batch take returned last is the first of a
	// restart.
	restartBatch bool
	text         keptText // the chain's content the caller has taken
	reasoning    keptText // and its reasoning_content
	id           string   // the completion id the caller sees
	// stitch makes the events of a response's tries one response, when
	// the call may continue or restart (see responsecontinue.go).
	stitch *respStitch
}

// hedging is a call's hedge timer: when it is due (a stale run of it
// returns) and how many hedges it launched. Its methods run under the
// call's lock.
type hedging struct {
	timer *time.Timer
	due   time.Time
	n     int
}

// arm starts the timer: f runs once d has passed.
func (h *hedging) arm(d time.Duration, f func()) {
	h.due = time.Now().Add(d)
	h.timer = time.AfterFunc(d, f)
}

// reset makes the armed timer due d from now.
func (h *hedging) reset(d time.Duration) {
	h.due = time.Now().Add(d)
	h.timer.Reset(d)
}

// stop stops the timer, if armed.
func (h *hedging) stop() {
	if h.timer != nil {
		h.timer.Stop()
	}
}

// callSettings is what a call of the Router runs under: its CallPolicy
// over the Router's Policy.
type callSettings struct {
	budget    Budget // the call's override
	failFast  bool
	validator func(string) error // nil: each route's
	buffered  bool               // outputs reach the caller once validated
	keepText  bool               // the chain's text is kept (continuation, validation)
}

// call is the source of a Router call. It starts tries (one attempt at one
// route each), watches their events, stops the losers and hands the
// winners' chunks to the Stream in order (its chain).
//
// Every decision is taken under mu, in the attempts' events and timers, so
// that how fast the caller reads never changes what happens: an event is
// classified (classify), a decision taken from the call's situation
// (decide), both pure, and act carries it out. The call reaches an
// attempt only through the attempt's consumer methods.
type call struct {
	r   *Router
	ctx context.Context
	req codec.Request // the request, in its API
	// params is the request's chat view, through which policies see it.
	params openai.ChatCompletionNewParams
	whole  bool // a non-streaming call (Router.New and the like)
	// cutWhole is the last whole answer a server cut (see
	// attempt.cutWhole), for runWhole. Guarded by mu.
	cutWhole any
	opts     []option.RequestOption
	hooks    Hooks
	start    time.Time

	set    callSettings
	prompt int // estimated prompt tokens; -1 until needed
	bytes  int // the prompt's bytes of text (Timing.PromptBytes); -1 until needed

	mu      sync.Mutex
	state   callState
	tries   []*try
	next    int   // index of the next route to try
	won     *try  // the try that produced the call's first token
	out     chain // what the caller reads
	hedge   hedging
	err     error
	lastErr error
	// failedFast is the first breach under FailFast, which ends the call
	// once no try runs (see decide).
	failedFast error
	final      *Timing
	breaches   []BudgetError
	firstSend  time.Time // when the first try was sent: Budget.E2E counts from here
	// empty is the last try that ended cleanly without an output token:
	// the caller's answer if no other try gives one.
	empty   *try
	waiting bool // the caller waits on wake
	wake    chan struct{}
	done    chan struct{} // closed once Done has been reported
	// closing is set when the caller closes the stream, before close
	// takes mu: code of the caller's that the call waits for under mu
	// is then given up (see callerCode).
	closing latch
	// resumed: the call has tried to resume a background response's
	// stream; it does so once.
	resumed bool
	// aff is the call's session and the route order it gives
	// (Policy.Affinity).
	aff callAffinity
	// onTry handles the events of the call's tries other than output
	// (see tryreport.go): set when the call begins, before its first try.
	onTry func(*try, tryReport)
}

// callState is where a call is in its life.
type callState uint8

const (
	// callRunning: tries may start.
	callRunning callState = iota
	// callFinishing: the call's error is decided; its tries are ending.
	callFinishing
	// callEnded: every try has ended and the final Timing is built; the
	// Done hooks run.
	callEnded
	// callReported: the Done hooks have run; the caller sees the end.
	callReported
)

// try is one attempt, or one skipped route, within a call.
type try struct {
	rt      *route
	kind    AttemptKind
	start   time.Time
	state   tryState
	chained bool          // its output reaches the caller
	told    bool          // a restart whose first batch the caller has taken
	a       *attempt      // nil until sent, and for a skipped route
	ticket  ticket        // what its route's admission gave it
	stopped chan struct{} // closed when the policy stops a try still in admission
	// resume, when not nil, is the request of a continuation that resumes
	// the stream of a background response (see resume.go).
	resume codec.Request
	// ownRetries: openai-go does not retry this try; the Router may.
	ownRetries bool
	// probation holds the try's output back until it proves healthy
	// (Policy.Probation).
	probation probationState

	cause    error // why the policy stopped it; nil if it did not
	outcome  Outcome
	t        *Timing // final, once ended
	validErr error
}

// probationState is a try's probation: whether it is held, the tokens it
// has produced while held, and the timer of Probation.For.
type probationState struct {
	held   atomic.Bool // read on the output path (onOutput) without the call's lock
	tokens int         // under the call's lock
	timer  *time.Timer
	// committed is when the held output was released to the caller; zero
	// if it was never held.
	committed time.Time
	// reached holds the milestones reached while held, reported to the
	// Milestone hook at the commit (see heldHooks); under the call's lock.
	reached []reached
}

// tryState is where a try is in its life.
type tryState uint8

const (
	// tryAdmitting: waiting for its route's limiter.
	tryAdmitting tryState = iota
	// tryRunning: sent; its attempt runs.
	tryRunning
	// tryStopping: the policy stopped it (cause says why); its end is
	// awaited. Only the output that arrived before the stop reaches the
	// caller.
	tryStopping
	// tryEnded: its attempt, or its admission, has ended.
	tryEnded
)

// live reports whether tr runs or waits in admission, unstopped.
func (tr *try) live() bool { return tr.state == tryAdmitting || tr.state == tryRunning }

// unlockAndReport releases c.mu and, if the call has just ended, reports
// its final Timing.
func (c *call) unlockAndReport() {
	fin := c.takeFinal()
	c.mu.Unlock()
	c.report(fin)
}

// code returns how the call runs code of the caller's (see callerCode).
func (c *call) code() callerCode { return callerCode{ctx: c.ctx, closing: &c.closing} }

// model returns the model a try at rt asks for.
func (c *call) model(rt *route) string {
	if rt.Model != "" {
		return rt.Model
	}
	return c.params.Model
}

// sent returns when the call's first request left: what its TTFT and E2E
// count from. c.mu is held.
func (c *call) sent() time.Time {
	var first time.Time
	for _, tr := range c.tries {
		if tr.a == nil {
			continue
		}
		if s := tr.a.sent(); !s.IsZero() && (first.IsZero() || s.Before(first)) {
			first = s
		}
	}
	return first
}

// watchdog returns what enforces tr's budget: its attempt's watchdog; nil
// before tr is sent, for a skipped route and without a budget.
func (tr *try) watchdog() *watchdog {
	if tr.a == nil {
		return nil
	}
	return tr.a.w
}

// stop cancels tr with cause, recording outcome; from now on only the
// chunks that arrived so far can reach the caller. c.mu is held.
func (c *call) stop(tr *try, cause error, outcome Outcome) {
	if !tr.live() {
		return
	}
	tr.cause, tr.outcome = cause, outcome
	tr.watchdog().stop()
	if tr.state == tryAdmitting {
		close(tr.stopped)
	} else {
		tr.a.cut(cause)
	}
	tr.state = tryStopping
}

// chainUp makes tr's output the caller's, after that of the tries before
// it. c.mu is held.
func (c *call) chainUp(tr *try) {
	tr.chained = true
	c.out.tries = append(c.out.tries, tr)
	c.signal()
}

// signal wakes the caller if it waits for a change of the call (a try
// joined the chain, the call ended). c.mu is held. The caller may have
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

// chainText returns the content of the first choice the chain has produced
// so far, since its last restart: what the caller took and what waits for
// it. c.mu is held.
func (c *call) chainText() string {
	return c.chain(&c.out.text, appendContent)
}

// chainReasoning returns the reasoning_content of the first choice the
// chain has produced so far, as chainText its content. c.mu is held.
func (c *call) chainReasoning() string {
	return c.chain(&c.out.reasoning, appendReasoning)
}

// chain returns taken, what the caller took of the chain since its last
// restart, followed by what add takes of the chunks of each try that wait
// for it. c.mu is held.
func (c *call) chain(taken *keptText, add func(*keptText, []arrived)) string {
	var b keptText
	from := c.out.kept
	if c.out.at >= c.out.kept {
		from = c.out.at
		b = taken.clone()
	}
	for i, tr := range c.out.tries[from:] {
		if i > 0 {
			b.endRun() // each try's steps start a run of their own
		}
		tr.a.addUnread(&b, add)
	}
	return b.String()
}

// finish ends the call with err: no try starts after it and the running
// ones are stopped. The final Timing follows once every try has ended.
// c.mu is held.
func (c *call) finish(err error) {
	c.finishCause(err, errCallEnded)
}

func (c *call) finishCause(err, cause error) {
	if c.state != callRunning {
		return
	}
	c.state, c.err = callFinishing, err
	c.hedge.stop()
	for _, tr := range c.tries {
		if !tr.chained || cause == ErrStreamClosed {
			c.stop(tr, cause, OutcomeCanceled)
		}
	}
	c.signal()
}

// report hands the final Timing to the Done hooks, if fin is it; only then
// does the caller see the end.
func (c *call) report(fin *Timing) {
	if fin == nil {
		return
	}
	if f := c.hooks.Done; f != nil {
		what := "Done hook"
		if perr := guard("", &what, func() { f(c.ctx, fin) }); perr != nil && fin.Err == nil {
			fin.Err = perr
			c.mu.Lock()
			c.err = perr
			c.mu.Unlock()
		}
	}
	c.mu.Lock()
	c.state = callReported
	c.signal()
	c.mu.Unlock()
	close(c.done)
}

// take implements source.
func (c *call) take(buf []arrived) ([]arrived, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		var aw <-chan struct{} // the wake-up of the attempt the caller reads
		if c.out.at < len(c.out.tries) {
			batch, done, wake := c.out.tries[c.out.at].a.poll(buf)
			if len(batch) > 0 {
				if batch = c.handOver(batch); len(batch) > 0 {
					return batch, nil
				}
				buf = batch // none is passed on: poll again
				continue
			}
			if done {
				c.out.at++
				c.out.text.endRun() // the next try's steps start a run of their own
				c.dropRestarted()
				continue
			}
			aw = wake
		} else if c.state == callReported {
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

// dropRestarted forgets the text the caller took before the chain's last
// restart once the caller reads at that restart: the output it keeps (and
// a continuation carries on) starts there. c.mu is held.
func (c *call) dropRestarted() {
	if c.out.kept > 0 && c.out.at == c.out.kept {
		c.out.text.reset()
		c.out.reasoning.reset()
	}
}

// handOver prepares a batch of the chain for the caller and returns the
// chunks passed on: a continuation carries on the caller's completion,
// with the same id, or its response (see handResponse), and the text is
// kept when a policy needs it. c.mu is held.
func (c *call) handOver(p []arrived) []arrived {
	tr := c.out.tries[c.out.at]
	if c.out.at == 0 {
		if c.out.id == "" {
			c.out.id = p[0].Chunk.ID
		}
	} else {
		for i := range p {
			p[i].Chunk.ID = c.out.id
			if comp, ok := p[i].Orig.(*openai.Completion); ok {
				comp.ID = c.out.id
			}
		}
	}
	if c.out.stitch != nil {
		if p = c.handResponse(tr, p); len(p) == 0 {
			return p
		}
	} else {
		if c.set.keepText {
			appendContent(&c.out.text, p)
			appendReasoning(&c.out.reasoning, p)
		}
		if c.out.at > c.out.kept {
			c.countEarlier(p)
		}
	}
	c.out.restartBatch = tr.kind == AttemptRestart && !tr.told
	tr.told = true
	return p
}

// countEarlier adds to the usage a chunk of p reports the output of the
// tries before the one the caller reads, since its last restart: a
// continuation's server counts only its own, and the caller's answer,
// like its Timing, holds both. c.mu is held.
func (c *call) countEarlier(p []arrived) {
	earlier := int64(-1)
	for i := range p {
		if !p[i].HasUsage {
			continue
		}
		if earlier < 0 {
			earlier = c.deliveredBefore()
		}
		p[i].AddOutput(earlier)
	}
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
	c.closing.set()
	c.mu.Lock()
	c.finishCause(ErrStreamClosed, ErrStreamClosed)
	c.unlockAndReport()
	c.awaitEnd()
}

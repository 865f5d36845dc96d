package tokenpace

import (
	"cmp"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ErrBudgetExceeded is the sentinel every *BudgetError unwraps to.
var ErrBudgetExceeded = errors.New("tokenpace: latency budget exceeded")

// defaultWarmup is Budget.Warmup when it is zero.
const defaultWarmup = 8

// Budget is the latency an attempt at one target may take. Every limit is
// measured on the attempt's own clock: from when its request was sent (after
// client-side admission) and by the arrival times of its chunks, never by
// when the caller reads them. The zero value sets no limit.
//
// A Router merges budgets field by field: a call's budget
// (ContextWithCallPolicy) overrides its route's, which overrides the
// Policy's; a zero field inherits.
type Budget struct {
	// TTFT bounds the time to the first output-bearing chunk; zero means no
	// limit. A Router also skips a route (other than the last) whose
	// learnt TTFT for the call's prompt, plus any limiter wait, exceeds
	// it (ErrAdmission).
	TTFT time.Duration
	// Gap bounds the silence between two output-bearing chunks, the stall
	// detector; zero means no limit. No limit is breached once the answer
	// is complete (every choice sent its finish reason, or a Responses
	// stream its final event): a server slow to send [DONE] or to close
	// the body breaches nothing, but the stream ends, cleanly, at the
	// deadline (of Gap, E2E or MinTPS) that passes first, without what
	// the server had yet to send. Gap does not bound the wait for the
	// first token of a continuation or a restart, which prefills a longer
	// prompt: TTFT does; but it bounds that of a resumed background
	// response, which prefills nothing (see Policy.Continue).
	Gap time.Duration
	// E2E bounds the call end to end, from its first request to the end
	// of its stream: for a Router call, across every attempt, fallbacks
	// and continuations included; zero means no limit. Once it is spent,
	// the routes left are skipped (ErrAdmission), not sent a request that
	// would be cut at once and counted against them: the call ends with
	// the breach that spent it. (metrics.SLO.E2E and plan.SLO.E2EP99 name
	// the same span.)
	E2E time.Duration
	// MinTPS is the lowest decode rate allowed, in output tokens per second
	// after the first chunk, checked once Warmup tokens have arrived, both
	// as each chunk arrives and while the next one is late; zero means no
	// limit. A chunk counts the tokens the server's usage says it added
	// (servers that stream usage with every chunk), else one per
	// output-bearing choice: one token per chunk for most servers.
	MinTPS float64
	// Warmup is how many output tokens arrive before MinTPS is checked;
	// zero means 8.
	Warmup int
}

// forResume returns the budget of a try that resumes a stream the server
// keeps (see resume.go): the server replays what it streamed, with no
// prefill, so the wait for its first token is a silence of the caller's
// stream, which Gap bounds when it is shorter than TTFT.
func (b Budget) forResume() Budget {
	if b.Gap > 0 && (b.TTFT == 0 || b.Gap < b.TTFT) {
		b.TTFT = b.Gap
	}
	return b
}

// isZero reports whether b sets no limit.
func (b Budget) isZero() bool {
	return b.TTFT == 0 && b.Gap == 0 && b.E2E == 0 && b.MinTPS == 0
}

// merge returns b with every zero field taken from base.
func (b Budget) merge(base Budget) Budget {
	if b.TTFT == 0 {
		b.TTFT = base.TTFT
	}
	if b.Gap == 0 {
		b.Gap = base.Gap
	}
	if b.E2E == 0 {
		b.E2E = base.E2E
	}
	if b.MinTPS == 0 {
		b.MinTPS = base.MinTPS
	}
	if b.Warmup == 0 {
		b.Warmup = base.Warmup
	}
	return b
}

// validate reports a negative or non-finite limit.
func (b Budget) validate() error {
	if b.TTFT < 0 || b.Gap < 0 || b.E2E < 0 || b.Warmup < 0 || b.MinTPS < 0 || b.MinTPS != b.MinTPS || b.MinTPS > 1e9 {
		return fmt.Errorf("tokenpace: invalid budget %+v: limits must be positive or zero", b)
	}
	return nil
}

// Phase names the budget limit a breach concerns.
type Phase string

// Budget phases.
const (
	PhaseTTFT Phase = "ttft"
	PhaseGap  Phase = "gap"
	PhaseE2E  Phase = "e2e"
	PhaseTPS  Phase = "tps"
)

// BudgetError reports that an attempt exceeded its budget: the error that
// ends a call, and each entry of Timing.Breaches. It unwraps to
// ErrBudgetExceeded. The output streamed before the breach stays readable
// through Stream.Accumulated.
type BudgetError struct {
	// Target names the target that breached; empty for an unnamed one.
	Target string
	// Phase is the limit exceeded.
	Phase Phase
	// Limit is the budget's value and Observed the value measured when the
	// attempt was stopped; for PhaseTPS both are times per output token
	// (1/TPS).
	Limit, Observed time.Duration
	// Late says the client itself was starved (of CPU, say) while it
	// measured the breach, so the breach may be its own rather than the
	// server's, and it does not count against the route's circuit
	// breaker. It is the longer of how long after the deadline the
	// watchdog got to run, when that was more than 20 ms, and the longest
	// wait for a CPU of any goroutine of the process during the attempt,
	// as the Go scheduler measured it (runtime/metrics
	// "/sched/latencies:seconds", rounded down to 20 ms × 2ⁿ), when that
	// reached 20 ms and, but for PhaseTPS, a tenth of Limit (a single wait
	// that short says little of a long one). Zero otherwise.
	Late time.Duration
}

// errClientLate is what a route's breaker is told of a breach measured
// while the client was starved: nothing about the server.
var errClientLate = errors.New("tokenpace: budget breach measured while the client was starved")

// Error implements error.
func (e *BudgetError) Error() string {
	msg := "tokenpace: " + string(e.Phase) + " budget exceeded"
	if e.Target != "" {
		msg += " on target " + e.Target
	}
	return fmt.Sprintf("%s: %v observed, limit %v", msg, e.Observed, e.Limit)
}

// Unwrap returns ErrBudgetExceeded.
func (e *BudgetError) Unwrap() error { return ErrBudgetExceeded }

// watchdog enforces a Budget on one attempt. It learns of chunks through
// token, called on the attempt's reader goroutine, and of time through one
// timer that is set at the earliest deadline. Deadlines only move later as
// chunks arrive, except when the first chunk (or the MinTPS warm-up) makes a
// new one apply, so most chunks cost a lock and a few comparisons and never
// touch the timer: when the timer fires early it re-arms itself.
//
// breach runs at most once, on the timer's goroutine (waited: a deadline
// passed while nothing arrived) or on the reader's (a chunk came too
// late); it must not block.
type watchdog struct {
	b         Budget
	warmup    int
	tpot      time.Duration // 1/MinTPS, 0 when unset
	start     time.Time
	firstSend time.Time // when the call's first request left: E2E counts from here
	breach    func(b BudgetError, waited bool)
	// sched reads the scheduler latency histogram and schedStart is its
	// reading when the attempt was sent; nil sched reads nothing.
	sched      func() schedReading
	schedStart schedReading

	mu      sync.Mutex
	timer   *time.Timer
	armed   time.Time // when the timer fires; zero when it is not set
	first   time.Time
	last    time.Time
	n       int // output tokens so far
	nFirst  int // output tokens of the first chunk
	stopped bool
}

// tryBudget is the budget of one try of a Router call, as its attempt's
// watchdog enforces it: the budget merged for the try's route, and what
// changes it for this try. The zero value sets no limit.
type tryBudget struct {
	b Budget
	// gapFirst: the try resumes a background response, whose first
	// token is due within Gap (see forResume).
	gapFirst bool
	// commitTokens is Probation.Tokens: MinTPS is checked by the commit
	// at the latest. Zero without probation.
	commitTokens int
	start        time.Time // when the try is sent
	firstSend    time.Time // when the call's first request left
}

// watch starts the watchdog of tb, which reports a breach to breach; it
// returns nil when tb sets no limit.
func (tb tryBudget) watch(breach func(b BudgetError, waited bool)) *watchdog {
	b := tb.b
	if b.isZero() {
		return nil
	}
	if tb.gapFirst {
		b = b.forResume()
	}
	if p := tb.commitTokens; p > 0 && b.MinTPS > 0 {
		b.Warmup = min(cmp.Or(b.Warmup, defaultWarmup), p)
	}
	return newWatchdog(b, tb.start, tb.firstSend, breach)
}

// newWatchdog starts enforcing b on an attempt sent at start, within a
// call whose first request left at call. It returns nil when b sets no
// limit.
func newWatchdog(b Budget, start, firstSend time.Time, breach func(b BudgetError, waited bool)) *watchdog {
	if b.isZero() {
		return nil
	}
	w := &watchdog{b: b, warmup: b.Warmup, start: start, firstSend: firstSend, breach: breach, sched: sampleSched}
	if w.sched != nil {
		w.schedStart = w.sched()
	}
	if w.warmup <= 0 {
		w.warmup = defaultWarmup
	}
	if b.MinTPS > 0 {
		w.tpot = time.Duration(float64(time.Second) / b.MinTPS)
	}
	w.mu.Lock()
	if dl, _ := w.deadline(); !dl.IsZero() {
		w.armed = dl
		w.timer = time.AfterFunc(dl.Sub(start), w.fire)
	}
	w.mu.Unlock()
	return w
}

// deadline returns the earliest time at which the budget is exceeded unless
// a chunk arrives, and the phase it concerns; zero when there is none.
// w.mu is held.
func (w *watchdog) deadline() (time.Time, Phase) {
	var dl time.Time
	var ph Phase
	consider := func(t time.Time, p Phase) {
		if dl.IsZero() || t.Before(dl) {
			dl, ph = t, p
		}
	}
	if w.b.E2E > 0 {
		consider(w.firstSend.Add(w.b.E2E), PhaseE2E)
	}
	if w.n == 0 {
		if w.b.TTFT > 0 {
			consider(w.start.Add(w.b.TTFT), PhaseTTFT)
		}
		return dl, ph
	}
	if w.b.Gap > 0 {
		consider(w.last.Add(w.b.Gap), PhaseGap)
	}
	if w.tpot > 0 && w.n >= w.warmup {
		consider(w.first.Add(time.Duration(w.n-w.nFirst+1)*w.tpot), PhaseTPS)
	}
	return dl, ph
}

// token notes an output-bearing chunk of k tokens that arrived at at.
func (w *watchdog) token(at time.Time, k int) {
	if w == nil {
		return
	}
	k = max(k, 1)
	w.mu.Lock()
	if w.stopped {
		w.mu.Unlock()
		return
	}
	first := w.n == 0
	if first {
		w.first, w.nFirst = at, k
	}
	w.last = at
	prev := w.n
	w.n += k
	if after := w.n - w.nFirst; w.tpot > 0 && w.n >= w.warmup && after > 0 {
		if tpot := at.Sub(w.first) / time.Duration(after); tpot > w.tpot {
			w.stopped = true
			w.stopTimer()
			w.mu.Unlock()
			w.report(BudgetError{Phase: PhaseTPS, Limit: w.tpot, Observed: tpot}, false)
			return
		}
	}
	if first || (prev < w.warmup && w.n >= w.warmup) {
		// A new kind of deadline applies now; it may be earlier than the
		// one the timer is set at.
		w.rearm(at)
	}
	w.mu.Unlock()
}

// rearm sets the timer at the current deadline if that is earlier than
// the one it is set at. w.mu is held.
func (w *watchdog) rearm(now time.Time) {
	dl, _ := w.deadline()
	if dl.IsZero() || (!w.armed.IsZero() && !dl.Before(w.armed)) {
		return
	}
	w.armed = dl
	if w.timer == nil {
		w.timer = time.AfterFunc(dl.Sub(now), w.fire)
		return
	}
	w.timer.Reset(dl.Sub(now))
}

// fire runs when the timer expires: a breach if a deadline passed, else
// the timer is set at the next deadline.
func (w *watchdog) fire() { w.fireAt(time.Now()) }

// fireAt is fire at now.
func (w *watchdog) fireAt(now time.Time) {
	w.mu.Lock()
	if w.stopped {
		w.mu.Unlock()
		return
	}
	dl, ph := w.deadline()
	if dl.IsZero() {
		w.armed = time.Time{}
		w.mu.Unlock()
		return
	}
	if now.Before(dl) {
		w.armed = dl
		w.timer.Reset(dl.Sub(now))
		w.mu.Unlock()
		return
	}
	w.stopped = true
	b := BudgetError{Phase: ph}
	if late := now.Sub(dl); late > starvedAfter {
		b.Late = late
	}
	switch ph {
	case PhaseE2E:
		b.Limit, b.Observed = w.b.E2E, now.Sub(w.firstSend)
	case PhaseTTFT:
		b.Limit, b.Observed = w.b.TTFT, now.Sub(w.start)
	case PhaseGap:
		b.Limit, b.Observed = w.b.Gap, now.Sub(w.last)
	case PhaseTPS:
		// The rate if the late chunk came now, or the rate so far if
		// that is lower.
		after := w.n - w.nFirst
		b.Limit, b.Observed = w.tpot, now.Sub(w.first)/time.Duration(after+1)
		if after > 0 {
			b.Observed = max(b.Observed, w.last.Sub(w.first)/time.Duration(after))
		}
	}
	w.mu.Unlock()
	w.report(b, true)
}

// report marks b as measured while the client was starved if a goroutine
// of the process waited for a CPU longer than it may since the attempt
// was sent, then reports it. The scheduler is read here, once per breach,
// not as chunks arrive.
func (w *watchdog) report(b BudgetError, waited bool) {
	if w.sched != nil {
		waited := w.sched().waitedSince(w.schedStart)
		if b.Phase == PhaseTPS || waited >= b.Limit/10 {
			b.Late = max(b.Late, waited)
		}
	}
	w.breach(b, waited)
}

// sampleSched is what a new watchdog reads the scheduler latency
// histogram with; tests replace it.
var sampleSched = readSched

// stop ends the watch; no breach is reported after it returns unless one
// was already being reported.
func (w *watchdog) stop() {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.stopped = true
	w.stopTimer()
	w.mu.Unlock()
}

func (w *watchdog) stopTimer() {
	if w.timer != nil {
		w.timer.Stop()
	}
}

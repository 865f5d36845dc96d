package tokenpace

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/sony/gobreaker/v2"

	"github.com/tokenpace/tokenpace/internal/wire"
)

// ErrCircuitOpen is the cause of a route skipped because its circuit
// breaker is open (or half-open with its probes in flight), or closed so
// recently that the route receives only a share of calls
// (BreakerSettings.Ramp).
var ErrCircuitOpen = errors.New("tokenpace: circuit breaker open")

// Defaults of BreakerSettings.
const (
	defaultBreakerFailures = 5
	defaultBreakerTimeout  = 30 * time.Second
)

// BreakerSettings configures the circuit breaker every route of a Router
// has: a github.com/sony/gobreaker/v2 two-step breaker. Budget breaches,
// server errors (5xx, 429, broken streams) and outputs a validator rejected
// count as failures; the caller's cancellation, a lost hedge and 4xx
// responses caused by the request itself are not counted. An open breaker
// skips its route at once, recorded as an Attempt with OutcomeSkipped.
// The zero value is a breaker with the defaults below.
type BreakerSettings struct {
	// Disabled turns off the breakers the Router makes from these
	// settings; a route's own Route.Breaker, to which they do not apply,
	// stays on. The zero value false keeps them.
	Disabled bool
	// Failures is how many consecutive failures open the breaker; zero
	// means 5.
	Failures uint32
	// ReadyToTrip, if set, decides instead of Failures whether the counts
	// after a failure open the breaker; nil means use Failures. A panic
	// in it counts as false, and so does an answer that takes over
	// 100 ms (it runs with the breaker's lock held).
	ReadyToTrip func(gobreaker.Counts) bool
	// Timeout is how long the breaker stays open before it lets probes
	// through (half-open); zero means 30 s.
	Timeout time.Duration
	// HalfOpenRequests is how many probes a half-open breaker lets
	// through; they must all succeed to close it. Zero means 1.
	HalfOpenRequests uint32
	// Interval is the period after which a closed breaker clears its
	// counts; zero means never (only successes reset the consecutive
	// failures).
	Interval time.Duration
	// OnStateChange is called when the breaker of target changes state,
	// with gobreaker's state names ("closed", "half-open", "open"); it
	// has the signature of metrics.OTel.BreakerStateChanged. Nil means no
	// call. It runs synchronously, with the breaker's lock held, and
	// should not block: the breaker waits for it at most 100 ms, then
	// leaves it to go on alone; a panic in it is dropped.
	OnStateChange func(target, from, to string)
	// Ramp, when positive, brings a route whose breaker closes again
	// (after being open and half-open) back gradually: over Ramp, the
	// share of calls it receives rises linearly from none to all, the
	// others skipping it as if it were still open (recorded with
	// Attempt.Admission "ramp") and falling back to the next route. The
	// share is dealt out evenly, not drawn at random. A call's last route
	// is never skipped by a ramp. It applies to a route's own breaker and
	// to one set as Route.Breaker alike. Zero means none: a closed breaker
	// takes every call at once.
	Ramp time.Duration
}

// Breaker is a route's circuit breaker, such as one shared by several
// processes (see Route.Breaker). A *gobreaker.TwoStepCircuitBreaker
// satisfies it. Implementations must be safe for concurrent use.
//
// Its methods take no context. A Router call waits for one that blocks
// (a store that does not answer) only as long as its caller does: until
// the call's context ends or the caller closes the stream. The route is
// then left, and an admission Allow gives after that is told unsent.
type Breaker interface {
	// Allow asks to send one request. A non-nil error skips the route
	// (ErrCircuitOpen). Otherwise done must be called once with the
	// request's outcome: nil for success, else the error, which counts
	// as a failure unless the Router's breakers leave it out (see
	// BreakerSettings.Gobreaker: its IsExcluded).
	Allow() (done func(err error), err error)
	// State returns the breaker's current state.
	State() gobreaker.State
}

// breaker is a route's own circuit breaker; nil when breakers are
// disabled.
type breaker = gobreaker.TwoStepCircuitBreaker[struct{}]

func newBreaker(target string, s BreakerSettings) *breaker {
	if s.Disabled {
		return nil
	}
	return gobreaker.NewTwoStepCircuitBreaker[struct{}](s.Gobreaker(target))
}

// withDefaults returns s with each zero field that stands for a value set
// to that value: Failures 5, Timeout 30 s, HalfOpenRequests 1. The other
// fields are kept.
func (s BreakerSettings) withDefaults() BreakerSettings {
	if s.Failures == 0 {
		s.Failures = defaultBreakerFailures
	}
	if s.Timeout <= 0 {
		s.Timeout = defaultBreakerTimeout
	}
	if s.HalfOpenRequests == 0 {
		s.HalfOpenRequests = 1
	}
	return s
}

// Gobreaker returns the settings of the breaker a Router gives the route
// named name: s with its defaults (Failures 5, Timeout 30 s,
// HalfOpenRequests 1 as MaxRequests), IsExcluded leaving out of the counts
// the errors that say nothing of the target's health (the caller gave up,
// the request was never sent or lost a hedge, the server rejected the
// request itself: a 4xx other than 408, 429 and 499, and a 424 or 498
// unless it is its server's failure; a function of the caller's
// panicked), and OnStateChange, if set, called with gobreaker's state
// names; a panic in ReadyToTrip or OnStateChange is false, or dropped. It
// suits a Breaker of one's own that should decide as a Router's own does.
// Disabled is not looked at.
func (s BreakerSettings) Gobreaker(name string) gobreaker.Settings {
	d := s.withDefaults()
	failures := d.Failures
	trip := func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= failures }
	if user := d.ReadyToTrip; user != nil {
		// The caller's, which gobreaker runs under its lock, on a
		// call's goroutines, the call's own lock held: a panic is
		// false, and so is an answer that does not come within
		// stuckGrace.
		trip = func(c gobreaker.Counts) bool {
			var open bool
			if !inGrace(func() {
				defer func() { _ = recover() }()
				open = user(c)
			}) {
				return false
			}
			return open
		}
	}
	st := gobreaker.Settings{
		Name:        name,
		MaxRequests: d.HalfOpenRequests,
		Interval:    d.Interval,
		Timeout:     d.Timeout,
		ReadyToTrip: trip,
		IsExcluded:  excludedFromBreaker,
	}
	if f := d.OnStateChange; f != nil {
		st.OnStateChange = func(name string, from, to gobreaker.State) {
			inGrace(func() {
				defer func() { _ = recover() }()
				f(name, from.String(), to.String())
			})
		}
	}
	return st
}

// errNotSent is reported to a breaker for a request it allowed that was
// never sent (admission skipped it, or the call ended first).
var errNotSent = errors.New("tokenpace: request not sent")

// excludedFromBreaker reports errors that say nothing of the target's
// health: the caller gave up, the request was never sent or lost a hedge,
// or the server rejected the request itself (4xx other than 408, 424,
// 429 and 499, and 501: it does not do what was asked), or a function of
// the caller's panicked. A 424 Failed Dependency is the server's upstream
// failing, not the request (see wire.FailedDependency): it counts, unless
// the upstream it names refused the request itself. So does Groq's 498 of
// a flex tier out of capacity (see wire.CapacityExceeded); any other 498
// does not. A 499 is the server's or a relay's cancel (see
// wire.Cancelled): it counts, unless its server marks it not to be sent
// again. All three are told by their retry mark (see markedCallers). A 429
// counts, but Chutes' refusal of one prompt sent thousands of times (see
// wire.PromptSpam): its other prompts are served. A content policy's
// block of one answer inside its stream (see policyBlocked) is that
// answer's verdict, whatever status it carries: the route answered. A
// guardrail of LiteLLM's that broke its protocol (see
// liteLLMGuardrailFailed) counts, whatever its 400 says.
func excludedFromBreaker(err error) bool {
	if policyBlocked(err) || isPanic(err) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, ErrStreamClosed) || errors.Is(err, errNotSent) || errors.Is(err, errHedgeLost) ||
		errors.Is(err, errCallEnded) || errors.Is(err, errClientLate) ||
		errors.Is(err, errFieldIgnored) || errors.Is(err, wire.ErrInfillIgnored) || errors.Is(err, errChoicesGlued) || errors.Is(err, errPromptsGlued) ||
		errors.Is(err, errNIgnored) {
		return true
	}
	var ae *openai.Error
	if errors.As(err, &ae) {
		if liteLLMGuardrailFailed(ae) {
			return false // a guardrail that broke its protocol: the gateway's failure
		}
		s := ae.StatusCode
		if s == http.StatusTooManyRequests && wire.PromptSpam(ae.Message) {
			return true // one prompt refused, not the route
		}
		if s == http.StatusFailedDependency || s == wire.StatusCapacityExceeded || s == wire.StatusCancelled {
			return markedCallers(ae, s == wire.StatusCapacityExceeded)
		}
		return s >= 400 && s < 500 && s != http.StatusRequestTimeout && s != http.StatusTooManyRequests || s == http.StatusNotImplemented
	}
	return false
}

// guardedBreaker is a Breaker of the caller's (Route.Breaker), which a
// call asks with its own lock held, on goroutines the caller cannot
// guard: a panic in Allow is its error (the route is skipped, and the
// try's error is KindPanic), one in its done or State is dropped (State
// then says closed).
type guardedBreaker struct{ Breaker }

func (b guardedBreaker) Allow() (done func(error), err error) {
	defer recoverInto(&err)
	done, err = b.Breaker.Allow()
	if inner := done; inner != nil {
		done = func(err error) {
			defer func() { _ = recover() }()
			inner(err)
		}
	}
	return done, err
}

func (b guardedBreaker) State() (s gobreaker.State) {
	defer func() {
		if recover() != nil {
			s = gobreaker.StateClosed
		}
	}()
	return b.Breaker.State()
}

// markedCallers reports whether ae, a status whose side only its retry
// mark tells (a 424, a 498, a 499), is the request's: marked not to be sent
// again (see wire.RetryMark). Unmarked, it is the request's when callers
// says so.
func markedCallers(ae *openai.Error, callers bool) bool {
	if ae.Response == nil {
		return callers
	}
	if retry, marked := wire.RetryMark(ae.Response.Header); marked {
		return !retry
	}
	return callers
}

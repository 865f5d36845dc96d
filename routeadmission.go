package tokenpace

import (
	"errors"
	"time"

	"github.com/sony/gobreaker/v2"
)

// ErrAdmission is the cause of a route skipped by admission: its limiter
// could not start the request soon enough for the TTFT budget, the
// request is larger than its tokens-per-minute limit allows at all, its
// server said it had no room (Limit.FollowServer), or the call's E2E
// budget was spent (Budget.E2E). Attempt.Admission names the server's
// limit and a breaker's ramp.
var ErrAdmission = errors.New("tokenpace: target skipped by admission: its limits or the call's budget leave the request no room")

// ticket is what a route's admission gave one try: the breaker's done, the
// limits' reservation, how long the request waits before it is sent, and
// the policy that held or skipped it beyond the breaker and the
// client-side limit. The call keeps it with the try and gives it back
// once: tell when the request has an outcome, unsend when it never left.
type ticket struct {
	done func(error) // the breaker's; nil without a breaker, and once told
	// code: done is a Breaker of the caller's (Route.Breaker), which the
	// call waits for as callerCode.
	code  bool
	res   reservation
	delay time.Duration
	// held names the policy that held or skipped the try
	// (Attempt.Admission); "" if none.
	held string
}

// admit asks rt, for a request of tokens tokens at now, whether it may go
// and when: its breaker, the ramp after the breaker closed (over ramp; 0
// admits), its Limiter or Limit and its server's limits, in that order.
// Code of the caller's runs through cc. A refusal gives back what was
// taken and returns the error that skips the route, or errWaitGivenUp when
// the call stopped waiting for the caller's code; the ticket then still
// says what held the try.
func (rt *route) admit(cc callerCode, now time.Time, tokens int, ramp time.Duration) (ticket, error) {
	tk := ticket{code: rt.brCode}
	if err := rt.allow(cc, &tk, ramp, now); err != nil {
		return tk, err
	}
	if !rt.limited() {
		return tk, nil
	}
	res, delay, ok, err := rt.reserveFor(cc, now, tokens)
	if !ok {
		tk.tell(cc, errNotSent)
		switch {
		case err == errWaitGivenUp:
			return tk, err
		case err != nil:
			return tk, &StreamError{Kind: KindPanic, Target: rt.Name, Detail: "limiter", Err: err}
		}
		return tk, &StreamError{Kind: KindSkipped, Target: rt.Name, Err: ErrAdmission}
	}
	tk.res, tk.delay = res, delay
	if rt.server != nil {
		d, t := rt.server.reserveAt(now, tokens)
		tk.res.server = t
		if d > 0 {
			tk.held, tk.delay = admissionServerLimit, max(tk.delay, d)
		}
	}
	return tk, nil
}

// allow asks rt's breaker, if any, to let a request through at now, and
// then the ramp over ramp: the done it gives goes into tk.
func (rt *route) allow(cc callerCode, tk *ticket, ramp time.Duration, now time.Time) error {
	if rt.br == nil {
		return nil
	}
	done, err := rt.breakerAllow(cc)
	var pe *panicError
	switch {
	case err == errWaitGivenUp:
		return err
	case errors.As(err, &pe):
		return &StreamError{Kind: KindPanic, Target: rt.Name, Detail: "breaker", Err: err}
	case err != nil:
		rt.ramp.refused()
		return &StreamError{Kind: KindSkipped, Target: rt.Name, Err: ErrCircuitOpen}
	}
	tk.done = done
	if ramp <= 0 {
		return nil
	}
	st, ok := rt.breakerState(cc)
	if !ok {
		tk.tell(cc, errNotSent)
		return errWaitGivenUp
	}
	if !rt.ramp.admitAt(now, st, ramp) {
		tk.held = admissionRamp
		tk.tell(cc, errNotSent)
		return &StreamError{Kind: KindSkipped, Target: rt.Name, Err: ErrCircuitOpen}
	}
	return nil
}

// breakerAllow asks rt's breaker to let a request through. It returns
// errWaitGivenUp when the call stopped waiting for one of the caller's.
func (rt *route) breakerAllow(cc callerCode) (done func(error), err error) {
	if !rt.brCode {
		return rt.br.Allow()
	}
	var d func(error)
	var e error
	undo := func() {
		if d != nil {
			d(errNotSent)
		}
	}
	if !cc.run(func() { d, e = rt.br.Allow() }, undo) {
		return nil, errWaitGivenUp
	}
	return d, e
}

// breakerState returns the state of rt's breaker, and false when the call
// stopped waiting for one of the caller's.
func (rt *route) breakerState(cc callerCode) (st gobreaker.State, ok bool) {
	if !rt.brCode {
		return rt.br.State(), true
	}
	var s gobreaker.State
	if !cc.run(func() { s = rt.br.State() }, nil) {
		return gobreaker.StateClosed, false // s is the goroutine's still
	}
	return s, true
}

// reserveFor reserves room for a request of tokens tokens at now on rt's
// limiter (see route.reserve). err is errWaitGivenUp when the call
// stopped waiting for a Limiter of the caller's.
func (rt *route) reserveFor(cc callerCode, now time.Time, tokens int) (res reservation, delay time.Duration, ok bool, err error) {
	if rt.Limiter == nil {
		return rt.reserve(now, tokens)
	}
	var r reservation
	var d time.Duration
	var admitted bool
	var e error
	undo := func() {
		if admitted {
			r.cancel(now)
		}
	}
	if !cc.run(func() { r, d, admitted, e = rt.reserve(now, tokens) }, undo) {
		return reservation{}, 0, false, errWaitGivenUp
	}
	return r, d, admitted, e
}

// limited reports whether rt has a rate limit.
func (rt *route) limited() bool { return rt.lim != nil || rt.Limiter != nil || rt.server != nil }

// reserve reserves capacity on rt's Limiter, or else its Limit, as
// limiter.reserve does. err is a panic of the Limiter's (see
// reserveGuarded), when ok is false for it.
func (rt *route) reserve(now time.Time, tokens int) (res reservation, delay time.Duration, ok bool, err error) {
	if rt.Limiter == nil {
		res, delay, ok = rt.lim.reserve(now, tokens)
		return res, delay, ok, nil
	}
	d, cancel, err := reserveGuarded(rt.Limiter, now, tokens)
	if err != nil {
		var pe *panicError
		if errors.As(err, &pe) {
			return reservation{}, 0, false, err
		}
		return reservation{}, 0, false, nil
	}
	res = reservation{shared: cancel}
	if s, ok := rt.Limiter.(limitSettler); ok {
		res.settler, res.reserved = s, tokens
	}
	return res, max(d, 0), true, nil
}

// reserveGuarded asks l, a Limiter of the caller's (Route.Limiter), to
// reserve, as guardedBreaker asks a breaker: a panic in Reserve is its
// error, one in its cancel is dropped.
func reserveGuarded(l Limiter, now time.Time, tokens int) (d time.Duration, cancel func(time.Time), err error) {
	defer recoverInto(&err)
	d, cancel, err = l.Reserve(now, tokens)
	if inner := cancel; inner != nil {
		cancel = func(now time.Time) {
			defer func() { _ = recover() }()
			inner(now)
		}
	}
	return d, cancel, err
}

// tell reports the outcome of the ticket's request to its breaker, once.
func (tk *ticket) tell(cc callerCode, err error) {
	done := tk.done
	if done == nil {
		return
	}
	tk.done = nil
	if !tk.code {
		done(err)
		return
	}
	cc.run(func() { done(err) }, nil)
}

// unsend gives back what the ticket took for a request that was not sent
// after all: its reservation, and its breaker's admission.
func (tk *ticket) unsend(cc callerCode, now time.Time) {
	if tk.res.shared == nil {
		tk.res.cancel(now)
	} else {
		cc.run(func() { tk.res.cancel(now) }, nil)
	}
	tk.tell(cc, errNotSent)
}

// end gives the ticket of a request that was sent back at now: its
// breaker is told err, the request's outcome, and its reservation is
// corrected by the tokens the request used (see reservation.settle),
// when its server reported them (used is negative when it did not).
func (tk *ticket) end(cc callerCode, err error, now time.Time, used int) {
	tk.tell(cc, err)
	switch {
	case used < 0:
	case tk.res.settler == nil:
		tk.res.settle(now, used)
	default:
		cc.run(func() { tk.res.settle(now, used) }, nil)
	}
}

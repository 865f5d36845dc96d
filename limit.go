package tokenpace

import (
	"errors"
	"math"
	"time"

	"golang.org/x/time/rate"
)

// Limit is the client-side rate limit of one route, enforced with
// golang.org/x/time/rate. The zero value sets no limit.
//
// A request waits for both limiters. When the route has a TTFT budget, a
// Router admits it only if the wait plus the route's predicted TTFT for
// the prompt (see Router.PredictTTFT) fits in that budget; otherwise it
// moves on to the next route at once instead of queueing. The last route
// is never skipped by admission: there the request waits.
type Limit struct {
	// RPS is the requests per second allowed; zero means no limit.
	RPS float64
	// Burst is how many requests may start at once; zero means RPS
	// rounded up (at least 1).
	Burst int
	// TPM is the tokens per minute allowed, counting the prompt (estimated
	// at four bytes a token) plus max_tokens, as hosted APIs do, until the
	// request ends: then the tokens the server reports it used replace the
	// estimate; zero means no limit. Its burst is one minute's worth.
	TPM int
	// FollowServer makes admission follow what the route's server says of
	// its own rate limits in every response's headers
	// (x-ratelimit-remaining-requests and -tokens,
	// x-ratelimit-reset-requests and -tokens as "1s", "6m0s", "20ms" or
	// seconds, as OpenAI, Azure OpenAI, Groq and LiteLLM send them;
	// Cerebras's -requests-day, -requests-minute and -tokens-minute;
	// Anthropic's anthropic-ratelimit-requests and -tokens, reset at an
	// RFC 3339 time; x-ratelimit-remaining and -reset, as OpenRouter, in
	// Unix milliseconds, and Together, in seconds, send them; Retry-After
	// in seconds or as a date, retry-after-ms, or else, on a 429, the
	// wait its body asks for, Gemini's retryDelay or OpenAI's "Please try
	// again in 20s"; a reset or wait over a day is not believed and
	// ignored): once
	// the server says it has too few requests or tokens left for a
	// request, or asks for a wait, the request waits until then, on top
	// of RPS and TPM
	// (never above them), so that admission skips the route (within a
	// TTFT budget, as for RPS and TPM) before the server answers 429
	// rather than after. Requests admitted since the response that
	// reported are counted against what it said remains. Where the server
	// also says the limit's size (x-ratelimit-limit-requests and -tokens,
	// Anthropic's -limit headers), its limit is read as refilling
	// continuously, as OpenAI and Anthropic document theirs (the reset is
	// when it is full again): a request waits until what it needs has
	// refilled, at the pace from what remains to the size over the reset
	// (30,000 tokens a minute with 5,000 left and 50 s to the reset: a
	// request of 10,000 tokens waits 10 s), never past the reset; without
	// the size, until the reset. False (the zero
	// value) ignores the headers; the Router then waits only when a
	// failed response's Retry-After still fits the TTFT budget (see
	// Router.NewStreaming).
	FollowServer bool
}

// isZero reports whether l sets no limit.
func (l Limit) isZero() bool { return l.RPS == 0 && l.TPM == 0 && !l.FollowServer }

func (l Limit) validate() error {
	if l.RPS < 0 || math.IsNaN(l.RPS) || math.IsInf(l.RPS, 0) || l.Burst < 0 || l.TPM < 0 {
		return errors.New("tokenpace: invalid limit: RPS, Burst and TPM must be finite and not negative")
	}
	return nil
}

// Limiter is a route's rate limit, such as one shared by several
// processes (see Route.Limiter). Implementations must be safe for
// concurrent use. A Router call waits for one that blocks only as long as
// its caller does, as for a Breaker: a reservation Reserve makes after
// that is cancelled.
//
// A Limiter that also has the method
//
//	Settle(now time.Time, reserved, used int)
//
// is told, when a request it admitted ends with the usage its server
// reported, the tokens Reserve was given for it (the estimate) and those
// it really used (prompt plus output), so that a tokens-per-minute limit
// counts what was used, as a Route's own Limit does; package fleet's
// Limiter has it. A panic in Settle is dropped.
type Limiter interface {
	// Reserve reserves capacity at now for one request of tokens tokens
	// (prompt estimate plus max_tokens) and returns how long the request
	// must wait before it is sent, and cancel, which gives the capacity
	// back when the request is not sent after all. A non-nil error means
	// the request can never be admitted: the route is skipped
	// (ErrAdmission).
	Reserve(now time.Time, tokens int) (delay time.Duration, cancel func(now time.Time), err error)
}

// limitSettler is a Limiter that is told the tokens a request used (see
// Limiter).
type limitSettler interface {
	Settle(now time.Time, reserved, used int)
}

// limiter enforces a Limit. A nil *limiter admits everything at once.
type limiter struct {
	rps, tpm *rate.Limiter
}

func newLimiter(l Limit) *limiter {
	if l.isZero() {
		return nil
	}
	var lim limiter
	if l.RPS > 0 {
		b := l.Burst
		if b == 0 {
			b = max(1, int(math.Ceil(l.RPS)))
		}
		lim.rps = rate.NewLimiter(rate.Limit(l.RPS), b)
	}
	if l.TPM > 0 {
		lim.tpm = rate.NewLimiter(rate.Limit(float64(l.TPM)/60), l.TPM)
	}
	return &lim
}

// reservation is capacity reserved for one request.
type reservation struct {
	rps, tpm  *rate.Reservation
	tpmLim    *rate.Limiter   // the TPM limiter, for settle
	tpmTokens int             // the tokens tpm reserved
	shared    func(time.Time) // a Limiter's cancel; nil for none
	settler   limitSettler    // a Limiter that is told the tokens used; nil for none
	reserved  int             // the tokens the Limiter reserved
	server    serverTicket    // the server's count (Limit.FollowServer); zero for none
}

// reserve reserves capacity at now for a request of tokens tokens and
// returns how long it must wait; ok is false when the request can never be
// admitted (more tokens than the TPM burst).
func (l *limiter) reserve(now time.Time, tokens int) (res reservation, delay time.Duration, ok bool) {
	if l == nil {
		return res, 0, true
	}
	if l.rps != nil {
		res.rps = l.rps.ReserveN(now, 1)
		delay = res.rps.DelayFrom(now)
	}
	if l.tpm != nil {
		res.tpm, res.tpmLim, res.tpmTokens = l.tpm.ReserveN(now, max(tokens, 1)), l.tpm, max(tokens, 1)
		if !res.tpm.OK() {
			res.cancel(now)
			return reservation{}, 0, false
		}
		delay = max(delay, res.tpm.DelayFrom(now))
	}
	return res, delay, true
}

// cancel gives the reserved capacity back, as far as it was not used.
func (r reservation) cancel(now time.Time) {
	r.server.cancel()
	if r.shared != nil {
		r.shared(now)
	}
	if r.rps != nil {
		r.rps.CancelAt(now)
	}
	if r.tpm != nil && r.tpm.OK() {
		r.tpm.CancelAt(now)
	}
}

// settle corrects a TPM reservation, made from an estimate, by the tokens
// the request really used (prompt plus output, as the server reported
// them): the difference is charged or given back at now. A negative
// reservation gives tokens back in x/time/rate (up to the burst), which
// TestTPMSettles checks.
func (r reservation) settle(now time.Time, used int) {
	if r.settler != nil && used > 0 {
		func() {
			defer func() { _ = recover() }()
			r.settler.Settle(now, r.reserved, used)
		}()
	}
	if r.tpmLim == nil || !r.tpm.OK() || used <= 0 {
		return
	}
	if d := used - r.tpmTokens; d != 0 {
		r.tpmLim.ReserveN(now, min(d, r.tpmLim.Burst()))
	}
}

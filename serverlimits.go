package tokenpace

import (
	"math"
	"net/http"
	"sync"
	"time"

	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace/internal/ratelimit"
	"github.com/tokenpace/tokenpace/internal/wire"
)

// Values of Attempt.Admission.
const (
	// admissionServerLimit: the route's server said it had no requests or
	// tokens left until a reset, or asked for a wait (Limit.FollowServer).
	admissionServerLimit = "server_limit"
	// admissionRamp: the route's breaker closed recently and the route
	// receives a ramping share of calls (BreakerSettings.Ramp).
	admissionRamp = "ramp"
)

// serverWindow is one of a server's limits (requests or tokens) as it last
// reported it at at: remaining until reset, the size it refills to (zero
// when not known), and how much the route admitted since that report that
// the server had not counted yet.
type serverWindow struct {
	known     bool
	remaining int
	limit     int
	at, reset time.Time
	spent     int
}

// delay returns how long a request needing need units must wait at now
// for the window to admit it: zero while it has room or is not known or
// has reset. Else, when the size it refills to is known, until enough has
// refilled, read as a steady refill from remaining to limit between the
// report and the reset (OpenAI's and Anthropic's limits refill
// continuously, their reset being when they are full again); never past
// the reset. Without the size, until the reset.
func (w serverWindow) delay(now time.Time, need int) time.Duration {
	if !w.known || !now.Before(w.reset) || w.spent+need <= w.remaining {
		return 0
	}
	if w.limit <= w.remaining {
		return w.reset.Sub(now)
	}
	span := float64(w.reset.Sub(w.at))
	fits := w.at.Add(time.Duration(math.Ceil(span * float64(w.spent+need-w.remaining) / float64(w.limit-w.remaining))))
	if !fits.Before(w.reset) {
		return w.reset.Sub(now)
	}
	return max(fits.Sub(now), 0)
}

// serverLimits follows what a route's server says of its rate limits
// (Limit.FollowServer). Every admission is counted (a ticket); a report
// from the response to the request of a ticket replaces the windows, the
// requests admitted after that ticket counted on top, since the server
// had not seen them. It is safe for concurrent use.
type serverLimits struct {
	mu         sync.Mutex
	req, tok   serverWindow
	retryUntil time.Time
	// reqs and toks count every admission and its tokens, in order;
	// applied is the reqs count of the ticket whose report applies.
	reqs, toks uint64
	applied    uint64
}

// serverTicket is one admission by serverLimits: its place in the order
// of admissions.
type serverTicket struct {
	s          *serverLimits
	reqs, toks uint64 // the counts after this admission
	tokens     int
}

// reserveAt counts a request of tokens tokens admitted at now, and
// returns how long it must wait before it is sent for the server to have
// room (zero if it has).
func (s *serverLimits) reserveAt(now time.Time, tokens int) (time.Duration, serverTicket) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := max(s.req.delay(now, 1), s.tok.delay(now, tokens))
	if now.Before(s.retryUntil) {
		d = max(d, s.retryUntil.Sub(now))
	}
	s.reqs++
	s.toks += uint64(tokens)
	s.req.spent++
	s.tok.spent += tokens
	return d, serverTicket{s: s, reqs: s.reqs, toks: s.toks, tokens: tokens}
}

// cancel gives back an admission whose request was never sent. The
// counts of later reports stay conservative: they still count it.
func (t serverTicket) cancel() {
	if t.s == nil {
		return
	}
	t.s.mu.Lock()
	defer t.s.mu.Unlock()
	t.s.req.spent = max(t.s.req.spent-1, 0)
	t.s.tok.spent = max(t.s.tok.spent-t.tokens, 0)
}

// report applies r, from the response to t's request arriving at now,
// unless a report of a later request was applied already.
func (t serverTicket) report(now time.Time, r ratelimit.Report) {
	s := t.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.RetryAfter > 0 {
		s.retryUntil = later(s.retryUntil, now.Add(r.RetryAfter))
	}
	if t.reqs < s.applied || (!r.HasRequests && !r.HasTokens) {
		return
	}
	s.applied = t.reqs
	if r.HasRequests {
		s.req = serverWindow{known: r.RequestsReset > 0, remaining: r.Requests, limit: r.RequestsLimit,
			at: now, reset: now.Add(r.RequestsReset), spent: int(s.reqs - t.reqs)}
	}
	if r.HasTokens {
		s.tok = serverWindow{known: r.TokensReset > 0, remaining: r.Tokens, limit: r.TokensLimit,
			at: now, reset: now.Add(r.TokensReset), spent: int(s.toks - t.toks)}
	}
}

// later returns the later of a and b.
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// middleware returns the request middleware that reports the rate-limit
// headers of every response to t's request, and the wait a 429's body
// asks for when its headers ask for none (see retryAfterBody).
func (t serverTicket) middleware() option.Middleware {
	return func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		res, err := next(req)
		if res != nil {
			now := time.Now()
			r := ratelimit.Parse(res.Header, now)
			if r.RetryAfter == 0 && res.StatusCode == http.StatusTooManyRequests {
				r.RetryAfter = retryAfterBody(res)
			}
			t.report(now, r)
		}
		return res, err
	}
}

// maxHintBody bounds how much of a 429's body is read for the wait it
// asks for.
const maxHintBody = 16 << 10

// retryAfterBody returns the wait res's error body asks for (Gemini's
// retryDelay, OpenAI's "Please try again in 20s"), reading at most
// maxHintBody bytes of it and leaving the body whole for its reader.
func retryAfterBody(res *http.Response) time.Duration {
	return ratelimit.BodyRetryAfter(wire.ReadAhead(res, maxHintBody))
}

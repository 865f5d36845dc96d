package simulate

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// RateLimit is a server-side rate limit, enforced over fixed windows and
// reported as OpenAI reports its own in every response's headers:
// x-ratelimit-limit-requests and -tokens, x-ratelimit-remaining-requests
// and -tokens (what is left in the current window once the request is
// counted), x-ratelimit-reset-requests and -tokens (the time until the
// window refills, as "1s", "6m0s", "20ms"). A request over either limit
// gets 429 with those headers, Retry-After (whole seconds, rounded up)
// and retry-after-ms, and is not counted. Tokens count as hosted APIs
// count them: the prompt plus max_tokens (or the server's default output
// length). The zero value limits nothing.
type RateLimit struct {
	// Requests is how many requests a window admits; zero means no
	// request limit.
	Requests int
	// Tokens is how many tokens a window admits; zero means no token
	// limit.
	Tokens int
	// Window is how long a window lasts; the first starts with the first
	// request. Zero means one minute.
	Window time.Duration
}

// WithRateLimit makes the server enforce l over all its models' requests
// and report it in every completion response's headers; see RateLimit.
func WithRateLimit(l RateLimit) Option {
	return optionFunc(func(c *config) { c.rateLimit = l })
}

func (l RateLimit) validate() error {
	if l.Requests < 0 || l.Tokens < 0 || l.Window < 0 {
		return fmt.Errorf("simulate: invalid rate limit %+v: no field may be negative", l)
	}
	return nil
}

// rateWindows is the state of a RateLimit: the current window and what it
// has admitted. The zero value with a zero limit admits everything.
type rateWindows struct {
	l     RateLimit
	mu    sync.Mutex
	start time.Time // of the current window; zero before the first request
	reqs  int
	toks  int
}

// rateDecision is what a RateLimit says of one request: whether it is
// admitted, and the headers that report the limit after it.
type rateDecision struct {
	ok                 bool
	remReq, remTok     int
	reset              time.Duration // until the current window ends
	hasReq, hasTok     bool
	limitReq, limitTok int
}

// admitAt counts a request of tokens tokens arriving at at, if the
// current window has room for it, and says what to report.
func (w *rateWindows) admitAt(at time.Time, tokens int) rateDecision {
	w.mu.Lock()
	defer w.mu.Unlock()
	win := w.l.Window
	if win <= 0 {
		win = time.Minute
	}
	if w.start.IsZero() || !at.Before(w.start.Add(win)) {
		if w.start.IsZero() {
			w.start = at
		} else {
			w.start = w.start.Add(at.Sub(w.start) / win * win) // the window at holds
		}
		w.reqs, w.toks = 0, 0
	}
	d := rateDecision{reset: w.start.Add(win).Sub(at), hasReq: w.l.Requests > 0, hasTok: w.l.Tokens > 0,
		limitReq: w.l.Requests, limitTok: w.l.Tokens}
	d.ok = (!d.hasReq || w.reqs+1 <= w.l.Requests) && (!d.hasTok || w.toks+tokens <= w.l.Tokens)
	if d.ok {
		w.reqs++
		w.toks += tokens
	}
	d.remReq, d.remTok = max(w.l.Requests-w.reqs, 0), max(w.l.Tokens-w.toks, 0)
	return d
}

// header sets the rate-limit headers of d on h.
func (d rateDecision) header(h http.Header) {
	reset := d.reset.Round(time.Millisecond).String()
	if d.hasReq {
		h.Set("X-Ratelimit-Limit-Requests", strconv.Itoa(d.limitReq))
		h.Set("X-Ratelimit-Remaining-Requests", strconv.Itoa(d.remReq))
		h.Set("X-Ratelimit-Reset-Requests", reset)
	}
	if d.hasTok {
		h.Set("X-Ratelimit-Limit-Tokens", strconv.Itoa(d.limitTok))
		h.Set("X-Ratelimit-Remaining-Tokens", strconv.Itoa(d.remTok))
		h.Set("X-Ratelimit-Reset-Tokens", reset)
	}
}

// rateLimited applies the server's RateLimit to a request of generation g
// arriving at at: it sets the headers on out and answers 429 if the
// request is over the limit, and reports whether the request goes on.
func (s *Server) rateLimited(out *output, at time.Time, g *generation) bool {
	if s.cfg.rateLimit == (RateLimit{}) {
		return true
	}
	d := s.limits.admitAt(at, g.prompt.tokens+g.maxTokens)
	d.header(out.w.Header())
	if d.ok {
		return true
	}
	out.fail(at, &apiError{status: http.StatusTooManyRequests, typ: errorType(http.StatusTooManyRequests), code: "rate_limit_exceeded",
		message: "Rate limit reached; please try again in " + d.reset.Round(time.Millisecond).String() + "."}, d.reset)
	return false
}

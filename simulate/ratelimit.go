package simulate

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// RateLimit is a server-side rate limit that refills continuously, as
// OpenAI's does: a bucket of Requests requests and one of Tokens tokens,
// each full at first and refilled at its size per Window (a token
// bucket, not fixed windows). It is reported as OpenAI reports its own in
// every response's headers: x-ratelimit-limit-requests and -tokens (the
// sizes), x-ratelimit-remaining-requests and -tokens (what is left, in
// whole requests and tokens, once the request is counted) and
// x-ratelimit-reset-requests and -tokens (the time until the bucket is
// full again, as "1s", "6m0s", "20ms", rounded up to the millisecond).
// A request over either limit gets 429 with those headers, Retry-After
// (whole seconds, rounded up) and retry-after-ms: the time until it
// would fit, or until the bucket is full if it never fits; it is not
// counted. Tokens count as hosted APIs count them: the prompt plus
// max_tokens (or the server's default output length). The zero value
// limits nothing.
type RateLimit struct {
	// Requests is how many requests the bucket holds, refilled at that
	// many per Window; zero means no request limit.
	Requests int
	// Tokens is how many tokens the bucket holds, refilled at that many
	// per Window; zero means no token limit.
	Tokens int
	// Window is how long an empty bucket takes to refill. Zero means one
	// minute.
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

// rateBuckets is the state of a RateLimit: what each bucket lacks of
// full, as of the last request. The zero value with a zero limit admits
// everything.
type rateBuckets struct {
	l          RateLimit
	mu         sync.Mutex
	last       time.Time // of the last request; zero before the first
	reqs, toks float64   // used and not yet refilled
}

// rateDecision is what a RateLimit says of one request: whether it is
// admitted, and the headers that report the limit after it.
type rateDecision struct {
	ok                 bool
	remReq, remTok     int
	resetReq, resetTok time.Duration // until the bucket is full
	retry              time.Duration // until the request fits, when not ok
	hasReq, hasTok     bool
	limitReq, limitTok int
}

// bucket is one of a RateLimit's buckets at a request: its size, what it
// lacks of full, and its refill period.
type bucket struct {
	size float64
	used float64
	win  time.Duration
}

// slack absorbs float rounding in what a bucket holds.
const slack = 1e-9

// fits reports whether n more units fit in b.
func (b bucket) fits(n int) bool { return b.used+float64(n) <= b.size+slack }

// remaining returns the whole units left in b.
func (b bucket) remaining() int { return max(int(math.Floor(b.size-b.used+slack)), 0) }

// until returns how long b takes to refill used units, rounded up to the
// millisecond.
func (b bucket) until(used float64) time.Duration {
	if used <= slack {
		return 0
	}
	d := time.Duration(math.Ceil(used / b.size * float64(b.win)))
	return (d + time.Millisecond - 1) / time.Millisecond * time.Millisecond
}

// wait returns how long a request of n units waits for room in b: until
// enough has refilled, or until b is full when n never fits.
func (b bucket) wait(n int) time.Duration {
	if float64(n) > b.size {
		return b.until(b.used)
	}
	return b.until(b.used + float64(n) - b.size)
}

// admitAt counts a request of tokens tokens arriving at at, if both
// buckets have room for it, and says what to report.
func (w *rateBuckets) admitAt(at time.Time, tokens int) rateDecision {
	w.mu.Lock()
	defer w.mu.Unlock()
	win := w.l.Window
	if win <= 0 {
		win = time.Minute
	}
	if !w.last.IsZero() && at.After(w.last) {
		el := float64(at.Sub(w.last)) / float64(win)
		w.reqs = max(w.reqs-el*float64(w.l.Requests), 0)
		w.toks = max(w.toks-el*float64(w.l.Tokens), 0)
	}
	w.last = later(w.last, at)
	req := bucket{float64(w.l.Requests), w.reqs, win}
	tok := bucket{float64(w.l.Tokens), w.toks, win}
	d := rateDecision{hasReq: w.l.Requests > 0, hasTok: w.l.Tokens > 0, limitReq: w.l.Requests, limitTok: w.l.Tokens}
	reqOK, tokOK := !d.hasReq || req.fits(1), !d.hasTok || tok.fits(tokens)
	d.ok = reqOK && tokOK
	if d.ok {
		req.used++
		tok.used += float64(tokens)
		w.reqs, w.toks = req.used, tok.used
	}
	if !reqOK {
		d.retry = req.wait(1)
	}
	if !tokOK {
		d.retry = max(d.retry, tok.wait(tokens))
	}
	d.remReq, d.remTok = req.remaining(), tok.remaining()
	d.resetReq, d.resetTok = req.until(req.used), tok.until(tok.used)
	return d
}

// later returns the later of a and b.
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// header sets the rate-limit headers of d on h.
func (d rateDecision) header(h http.Header) {
	if d.hasReq {
		h.Set("X-Ratelimit-Limit-Requests", strconv.Itoa(d.limitReq))
		h.Set("X-Ratelimit-Remaining-Requests", strconv.Itoa(d.remReq))
		h.Set("X-Ratelimit-Reset-Requests", d.resetReq.String())
	}
	if d.hasTok {
		h.Set("X-Ratelimit-Limit-Tokens", strconv.Itoa(d.limitTok))
		h.Set("X-Ratelimit-Remaining-Tokens", strconv.Itoa(d.remTok))
		h.Set("X-Ratelimit-Reset-Tokens", d.resetTok.String())
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
		message: "Rate limit reached; please try again in " + d.retry.String() + "."}, d.retry)
	return false
}

// Package ratelimit reads what a server's response headers say of its
// rate limits: the requests and tokens left in its windows and when they
// refill, and the wait it asks for (retry-after-ms, Retry-After). It
// reads OpenAI's x-ratelimit-* headers, which Azure OpenAI, Groq, LiteLLM
// and gateways in front of vLLM send too, Cerebras's per-minute and
// per-day ones, Anthropic's anthropic-ratelimit-* and the unsuffixed
// x-ratelimit-remaining and -reset of OpenRouter and Together. Values
// that do not parse, or that no server would mean (a negative count, a
// reset or a wait over a day, a reset in the past), are ignored.
//
// OpenAI's and Anthropic's limits refill continuously: their reset is the
// time until the limit is back to its initial state (OpenAI) or fully
// replenished (Anthropic), and their limit headers
// (x-ratelimit-limit-requests and -tokens,
// anthropic-ratelimit-requests-limit and -tokens-limit) give the size it
// refills to; Report carries that size, from which the time until a
// smaller amount is back can be estimated (see Report.RequestsLimit).
package ratelimit

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Report is what one response's headers say of the server's rate limits.
type Report struct {
	// HasRequests, HasTokens: a header of the requests or tokens left
	// (x-ratelimit-remaining-requests or -tokens, or another provider's
	// own, see Parse) was present and valid.
	HasRequests, HasTokens bool
	// Requests, Tokens: the requests and tokens left until the resets.
	Requests, Tokens int
	// RequestsReset, TokensReset: how long until the windows refill
	// (x-ratelimit-reset-requests, -tokens); zero when not said.
	RequestsReset, TokensReset time.Duration
	// RequestsLimit, TokensLimit: the size a window refills to, when its
	// server documents it as refilling continuously, from Requests or
	// Tokens to this size over the reset (OpenAI's
	// x-ratelimit-limit-requests and -tokens, which Azure OpenAI, Groq
	// and LiteLLM send too, and Anthropic's -limit headers); zero when
	// not said, or for a window that may refill all at once at its reset
	// (Cerebras, OpenRouter, Together).
	RequestsLimit, TokensLimit int
	// RetryAfter: the wait asked for (retry-after-ms, Retry-After).
	RetryAfter time.Duration
}

// window names the headers of one of a server's limits: what is left,
// when it refills, and the size it refills to continuously ("" for a
// window not documented to refill continuously).
type window struct{ remaining, reset, limit string }

// requestWindows and tokenWindows are the headers providers report their
// request and token limits in. When several are present the most
// restrictive applies (see pick).
var (
	requestWindows = []window{
		// OpenAI, Azure OpenAI, Groq, LiteLLM: a duration ("6m0s", "2m59.56s").
		{"X-Ratelimit-Remaining-Requests", "X-Ratelimit-Reset-Requests", "X-Ratelimit-Limit-Requests"},
		// Cerebras: seconds ("33011.382867").
		{"X-Ratelimit-Remaining-Requests-Minute", "X-Ratelimit-Reset-Requests-Minute", ""},
		{"X-Ratelimit-Remaining-Requests-Day", "X-Ratelimit-Reset-Requests-Day", ""},
		// Anthropic: an RFC 3339 time.
		{"Anthropic-Ratelimit-Requests-Remaining", "Anthropic-Ratelimit-Requests-Reset", "Anthropic-Ratelimit-Requests-Limit"},
		// OpenRouter: Unix time in milliseconds; Together: seconds.
		{"X-Ratelimit-Remaining", "X-Ratelimit-Reset", ""},
	}
	tokenWindows = []window{
		{"X-Ratelimit-Remaining-Tokens", "X-Ratelimit-Reset-Tokens", "X-Ratelimit-Limit-Tokens"},
		{"X-Ratelimit-Remaining-Tokens-Minute", "X-Ratelimit-Reset-Tokens-Minute", ""},
		{"Anthropic-Ratelimit-Tokens-Remaining", "Anthropic-Ratelimit-Tokens-Reset", "Anthropic-Ratelimit-Tokens-Limit"},
	}
)

// Parse reads the rate-limit headers of a response that arrived at now.
// Unparsable values are ignored.
func Parse(h http.Header, now time.Time) Report {
	var r Report
	at := serverNow(h, now)
	r.Requests, r.RequestsReset, r.RequestsLimit, r.HasRequests = pick(h, requestWindows, at)
	r.Tokens, r.TokensReset, r.TokensLimit, r.HasTokens = pick(h, tokenWindows, at)
	r.RetryAfter = RetryAfter(h, now)
	return r
}

// pick returns what h says is left of the most restrictive of windows
// (the least left, then the latest reset), when it refills, read against
// the server's time at, and the size it refills to (zero if not said or
// not above what is left).
func pick(h http.Header, windows []window, at time.Time) (left int, reset time.Duration, limit int, ok bool) {
	for _, w := range windows {
		n, valid := leastCount(h, w.remaining)
		if !valid {
			continue
		}
		d := latestReset(h, w.reset, at)
		if !ok || n < left || (n == left && d > reset) {
			left, reset, limit, ok = n, d, 0, true
			if w.limit != "" {
				if l, valid := leastCount(h, w.limit); valid && l > n {
					limit = l
				}
			}
		}
	}
	return left, reset, limit, ok
}

// fields returns the values of header name in h, each list that a proxy
// joined with commas split into its items (RFC 9110 allows either form);
// a value that is one HTTP date, which holds a comma, stays whole.
func fields(h http.Header, name string) []string {
	var out []string
	for _, v := range h.Values(name) {
		if _, err := http.ParseTime(strings.TrimSpace(v)); err == nil {
			out = append(out, v)
			continue
		}
		for f := range strings.SplitSeq(v, ",") {
			if f = strings.TrimSpace(f); f != "" {
				out = append(out, f)
			}
		}
	}
	return out
}

// leastCount returns the least valid count of header name in h (the most
// restrictive, when a proxy joined several).
func leastCount(h http.Header, name string) (n int, ok bool) {
	for _, f := range fields(h, name) {
		if c, valid := parseRemaining(f); valid && (!ok || c < n) {
			n, ok = c, true
		}
	}
	return n, ok
}

// latestReset returns the latest valid reset of header name in h, read
// against at (see parseReset).
func latestReset(h http.Header, name string, at time.Time) time.Duration {
	var d time.Duration
	for _, f := range fields(h, name) {
		d = max(d, parseReset(f, at))
	}
	return d
}

// parseRemaining parses a count of requests or tokens.
func parseRemaining(v string) (int, bool) {
	if v == "" {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	return int(min(n, 1<<31-1)), true
}

// maxReset bounds a reset or a wait a server may announce: a day.
const maxReset = 24 * time.Hour

// epochMillis: a number of this size or more is Unix time in
// milliseconds, not seconds (1e11 s is in the year 5138, 1e11 ms in
// 1973).
const epochMillis = 1e11

// parseReset parses when a window refills, against the server's time at:
// a Go-style duration as OpenAI and Groq send it ("1s", "6m0s", "20ms",
// "2m59.56s"); a number, which up to a day is seconds from now (Cerebras,
// Together, "0.5"), above it Unix time, in milliseconds from 1e11 on
// (OpenRouter's "1741305600000"), else in seconds; or a time, RFC 3339
// (Anthropic's "2026-12-04T06:00:30Z") or an HTTP date. Zero when v is
// empty or invalid, or the reset is past or over a day away.
func parseReset(v string, at time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	var d time.Duration
	if dd, err := time.ParseDuration(v); err == nil {
		d = dd
	} else if s, err := strconv.ParseFloat(v, 64); err == nil {
		switch {
		case !(s >= 0) || s > 1e15: // NaN, negative, or past any epoch in milliseconds
			return 0
		case s <= maxReset.Seconds():
			d = time.Duration(s * float64(time.Second))
		case s >= epochMillis:
			d = time.UnixMilli(int64(s)).Sub(at)
		default:
			d = time.Unix(int64(s), 0).Sub(at)
		}
	} else if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		d = t.Sub(at)
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(at)
	}
	if d <= 0 || d > maxReset {
		return 0
	}
	return d
}

// RetryAfter returns the wait a response's headers ask for, as openai-go
// reads them: retry-after-ms (Azure OpenAI's, in milliseconds), else
// Retry-After in seconds or as an HTTP date; zero when they ask for none.
// A date is a time on the server's clock, so it is read against the
// response's Date header, the same clock's time when it answered (RFC
// 9110), and against now only without one: a client whose clock is
// ahead of the server's would read the wait as none, one whose clock is
// behind as the wait plus the difference. Of several values (repeated,
// or joined with commas by a proxy) the longest wait applies. A wait over
// a day is ignored, as a reset over a day is:
// no provider documents one (OpenAI, Azure OpenAI, Groq and Anthropic ask
// for seconds to minutes), and a route held that long on a misread or
// misconfigured header would be lost to its callers.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	var ms time.Duration
	for _, f := range fields(h, "Retry-After-Ms") {
		if v, err := strconv.ParseFloat(f, 64); err == nil && v > 0 && v <= float64(maxReset.Milliseconds()) {
			ms = max(ms, time.Duration(v*float64(time.Millisecond)))
		}
	}
	if ms > 0 {
		return ms
	}
	var d time.Duration
	for _, f := range fields(h, "Retry-After") {
		d = max(d, retryAfter(strings.TrimSpace(f), h, now))
	}
	return d
}

// retryAfter parses one Retry-After value, seconds or an HTTP date; zero
// when it asks for no wait or one over a day.
func retryAfter(v string, h http.Header, now time.Time) time.Duration {
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s > 0 && s <= maxReset.Seconds() {
			return time.Duration(s * float64(time.Second))
		}
		return 0
	}
	if at, err := http.ParseTime(v); err == nil {
		if d := at.Sub(serverNow(h, now)); d > 0 && d <= maxReset {
			return d
		}
	}
	return 0
}

// serverNow returns the time on the server's clock when it sent the
// response of h: its Date header, else now. Date has whole seconds, so a
// time read against it may seem up to a second further away than it is.
func serverNow(h http.Header, now time.Time) time.Time {
	if t, err := http.ParseTime(h.Get("Date")); err == nil {
		return t
	}
	return now
}

// Error bodies that say how long to wait, when no header does: Gemini's
// RetryInfo detail ("retryDelay": "41s", a protobuf Duration in JSON, as
// its OpenAI-compatible endpoint sends it too), OpenAI's and Groq's
// message ("Please try again in 20s.", "in 6ms", "in 1m23.5s"), and a
// number of seconds in words: Azure API Management's rate-limit and
// llm-token-limit policies ("Token limit is exceeded. Try again in 59
// seconds.", whose Retry-After its retry-after-header-name may rename:
// learn.microsoft.com/azure/api-management/llm-token-limit-policy),
// Azure OpenAI's own 429 ("Please retry after 37 seconds.") and
// Moonshot's limits per minute ("request reached organization max RPM:
// 20, please try again after 1 seconds": MoonshotAI/kimi-cli#1599).
var (
	retryDelayRE = regexp.MustCompile(`"retryDelay"\s*:\s*"([0-9]+(?:\.[0-9]+)?s)"`)
	tryAgainRE   = regexp.MustCompile(`(?i)try again in ((?:[0-9]+(?:\.[0-9]+)?(?:h|ms|m|s))+)`)
	secondsRE    = regexp.MustCompile(`(?i)(?:try again (?:in|after)|retry after) ([0-9]+(?:\.[0-9]+)?) seconds?\b`)
)

// BodyRetryAfter returns the wait an error body asks for in words or in
// Gemini's error details (see retryDelayRE); zero when it asks for none,
// or for more than a day.
func BodyRetryAfter(body []byte) time.Duration {
	for _, re := range []*regexp.Regexp{retryDelayRE, tryAgainRE, secondsRE} {
		if m := re.FindSubmatch(body); m != nil {
			v := string(m[1])
			if re == secondsRE {
				v += "s"
			}
			if d, err := time.ParseDuration(v); err == nil && d > 0 && d <= maxReset {
				return d
			}
		}
	}
	return 0
}

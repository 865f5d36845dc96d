// Package ratelimit reads what a server's response headers say of its
// rate limits: the requests and tokens left in its windows and when they
// refill (OpenAI's x-ratelimit-* headers, which Azure OpenAI, Groq,
// Together and gateways in front of vLLM send too), and the wait it asks
// for (retry-after-ms, Retry-After). Values that do not parse, or that no
// server would mean (a negative count, a reset or a wait over a day), are
// ignored.
package ratelimit

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Report is what one response's headers say of the server's rate limits,
// as OpenAI, Azure OpenAI, Groq, Together and vLLM behind gateways send
// them.
type Report struct {
	// HasRequests, HasTokens: the x-ratelimit-remaining-requests or
	// -tokens header was present and valid.
	HasRequests, HasTokens bool
	// Requests, Tokens: the requests and tokens left until the resets.
	Requests, Tokens int
	// RequestsReset, TokensReset: how long until the windows refill
	// (x-ratelimit-reset-requests, -tokens); zero when not said.
	RequestsReset, TokensReset time.Duration
	// RetryAfter: the wait asked for (retry-after-ms, Retry-After).
	RetryAfter time.Duration
}

// Parse reads the rate-limit headers of a response that arrived at now.
// Unparsable values are ignored.
func Parse(h http.Header, now time.Time) Report {
	var r Report
	r.Requests, r.HasRequests = parseRemaining(h.Get("X-Ratelimit-Remaining-Requests"))
	r.Tokens, r.HasTokens = parseRemaining(h.Get("X-Ratelimit-Remaining-Tokens"))
	r.RequestsReset = parseReset(h.Get("X-Ratelimit-Reset-Requests"))
	r.TokensReset = parseReset(h.Get("X-Ratelimit-Reset-Tokens"))
	r.RetryAfter = RetryAfter(h, now)
	return r
}

// parseRemaining parses a count of remaining requests or tokens.
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

// parseReset parses a reset time: a Go-style duration as OpenAI sends it
// ("1s", "6m0s", "20ms", "1m30.5s") or a number of seconds ("0.5"); zero
// when v is empty, invalid, negative or over a day.
func parseReset(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		s, ferr := strconv.ParseFloat(v, 64)
		if ferr != nil || !(s >= 0 && s <= maxReset.Seconds()) {
			return 0
		}
		d = time.Duration(s * float64(time.Second))
	}
	if d < 0 || d > maxReset {
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
// behind as the wait plus the difference. A wait over a day is ignored, as a reset over a day is:
// no provider documents one (OpenAI, Azure OpenAI, Groq and Anthropic ask
// for seconds to minutes), and a route held that long on a misread or
// misconfigured header would be lost to its callers.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && ms > 0 && ms <= float64(maxReset.Milliseconds()) {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
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
// response of h: its Date header, else now.
func serverNow(h http.Header, now time.Time) time.Time {
	if t, err := http.ParseTime(h.Get("Date")); err == nil {
		return t
	}
	return now
}

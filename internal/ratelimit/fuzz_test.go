package ratelimit

import (
	"net/http"
	"testing"
	"time"
)

// FuzzParse: whatever a server puts in its rate-limit headers or a 429's
// body, reading them never panics, counts no negative requests or tokens,
// and gives no reset or wait below zero or over a day (maxReset).
func FuzzParse(f *testing.F) {
	for _, seed := range [][4]string{
		{"6m0s", "20ms", "Fri, 31 Dec 9999 23:59:59 GMT", `{"error":{"details":[{"retryDelay":"8s"}]}}`},
		{"1733011382867", "2026-12-06T08:00:30Z", "31536000", "Please try again in 20s."},
		{"-5", "NaN", "1e309", "try again in 1h2m3.5s"},
		{"", "0s", "Wed, 06 Dec 2026 08:00:30 GMT", ""},
	} {
		f.Add(seed[0], seed[1], seed[2], []byte(seed[3]))
	}
	now := time.Date(2026, 12, 6, 8, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, a, b, c string, body []byte) {
		h := http.Header{}
		for i, k := range []string{
			"X-Ratelimit-Remaining-Requests", "X-Ratelimit-Reset-Requests", "X-Ratelimit-Remaining-Tokens",
			"X-Ratelimit-Reset-Tokens", "X-Ratelimit-Remaining", "X-Ratelimit-Reset",
			"Anthropic-Ratelimit-Tokens-Remaining", "Anthropic-Ratelimit-Tokens-Reset",
			"X-Ratelimit-Remaining-Requests-Day", "X-Ratelimit-Reset-Requests-Day",
			"Retry-After", "Retry-After-Ms", "Date",
		} {
			h.Set(k, []string{a, b, c}[i%3])
		}
		r := Parse(h, now)
		if r.Requests < 0 || r.Tokens < 0 {
			t.Errorf("Parse: %d requests, %d tokens left; want none negative", r.Requests, r.Tokens)
		}
		for name, d := range map[string]time.Duration{
			"RequestsReset": r.RequestsReset, "TokensReset": r.TokensReset, "RetryAfter": r.RetryAfter,
			"RetryAfter()": RetryAfter(h, now), "BodyRetryAfter": BodyRetryAfter(body),
		} {
			if d < 0 || d > maxReset {
				t.Errorf("%s = %v; want within [0, %v]", name, d, maxReset)
			}
		}
	})
}

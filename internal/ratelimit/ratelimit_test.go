package ratelimit

import (
	"net/http"
	"testing"
	"time"
)

func TestParseReset(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"1s", time.Second}, {"6m0s", 6 * time.Minute}, {"20ms", 20 * time.Millisecond}, {"1m30.5s", 90500 * time.Millisecond},
		{"0.5", 500 * time.Millisecond}, {"12", 12 * time.Second}, {" 2s ", 2 * time.Second},
		{"", 0}, {"-1s", 0}, {"-3", 0}, {"soon", 0}, {"48h", 0}, {"1e12", 0}, {"NaN", 0},
	}
	for _, tt := range tests {
		if got := parseReset(tt.in); got != tt.want {
			t.Errorf("parseReset(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestParseServerReport(t *testing.T) {
	now := time.Date(2026, 12, 4, 6, 0, 0, 0, time.UTC)
	h := http.Header{}
	h.Set("x-ratelimit-remaining-requests", "3")
	h.Set("x-ratelimit-remaining-tokens", "1200")
	h.Set("x-ratelimit-reset-requests", "6m0s")
	h.Set("x-ratelimit-reset-tokens", "20ms")
	h.Set("Retry-After", now.Add(90*time.Second).Format(http.TimeFormat))
	got := Parse(h, now)
	want := Report{HasRequests: true, HasTokens: true, Requests: 3, Tokens: 1200, RequestsReset: 6 * time.Minute, TokensReset: 20 * time.Millisecond, RetryAfter: 90 * time.Second}
	if got != want {
		t.Errorf("Parse = %+v, want %+v", got, want)
	}
	h = http.Header{}
	h.Set("x-ratelimit-remaining-requests", "-1")
	h.Set("retry-after-ms", "250")
	h.Set("Retry-After", "9")
	if got, want := Parse(h, now), (Report{RetryAfter: 250 * time.Millisecond}); got != want {
		t.Errorf("Parse(bad remaining, retry-after-ms) = %+v, want %+v", got, want)
	}
}

// TestRetryAfter: the waits providers ask for, as they document them, and
// values no server would mean.
func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 12, 4, 6, 0, 0, 0, time.UTC)
	date := func(d time.Duration) string { return now.Add(d).Format(http.TimeFormat) }
	tests := []struct {
		name    string
		headers map[string]string
		want    time.Duration
	}{
		{"none", nil, 0},
		{"seconds (OpenAI, Groq, Anthropic, LiteLLM)", map[string]string{"Retry-After": "20"}, 20 * time.Second},
		{"fractional seconds", map[string]string{"Retry-After": "1.5"}, 1500 * time.Millisecond},
		{"Azure OpenAI's retry-after-ms first", map[string]string{"retry-after-ms": "59000", "Retry-After": "59"}, 59 * time.Second},
		{"retry-after-ms zero: Retry-After", map[string]string{"retry-after-ms": "0", "Retry-After": "2"}, 2 * time.Second},
		{"HTTP date (nginx, Cloudflare)", map[string]string{"Retry-After": date(90 * time.Second)}, 90 * time.Second},
		{"RFC 850 date", map[string]string{"Retry-After": now.Add(30 * time.Second).Format(time.RFC850)}, 30 * time.Second},
		{"date in the past", map[string]string{"Retry-After": date(-time.Minute)}, 0},
		{"date, server's clock 10 min ahead", map[string]string{"Date": date(10 * time.Minute), "Retry-After": date(10*time.Minute + 30*time.Second)}, 30 * time.Second},
		{"date, server's clock 10 min behind", map[string]string{"Date": date(-10 * time.Minute), "Retry-After": date(-10*time.Minute + 30*time.Second)}, 30 * time.Second},
		{"date, Date not a date", map[string]string{"Date": "yesterday", "Retry-After": date(30 * time.Second)}, 30 * time.Second},
		{"seconds, whatever the Date", map[string]string{"Date": date(-time.Hour), "Retry-After": "7"}, 7 * time.Second},
		{"a day", map[string]string{"Retry-After": "86400"}, 24 * time.Hour},
		{"negative", map[string]string{"Retry-After": "-5"}, 0},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0},
		{"NaN", map[string]string{"Retry-After": "NaN", "retry-after-ms": "NaN"}, 0},
		{"over a day: seconds", map[string]string{"Retry-After": "31536000"}, 0},
		{"over a day: milliseconds", map[string]string{"retry-after-ms": "31536000000"}, 0},
		{"over a day: date", map[string]string{"Retry-After": date(365 * 24 * time.Hour)}, 0},
		{"far date", map[string]string{"Retry-After": "Fri, 31 Dec 9999 23:59:59 GMT"}, 0},
	}
	for _, tt := range tests {
		h := http.Header{}
		for k, v := range tt.headers {
			h.Set(k, v)
		}
		if got := RetryAfter(h, now); got != tt.want {
			t.Errorf("%s: RetryAfter(%v) = %v, want %v", tt.name, tt.headers, got, tt.want)
		}
	}
}

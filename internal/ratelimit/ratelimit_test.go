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

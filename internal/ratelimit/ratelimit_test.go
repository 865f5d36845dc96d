package ratelimit

import (
	"net/http"
	"strconv"
	"testing"
	"time"
)

func TestParseReset(t *testing.T) {
	now := time.Date(2026, 12, 4, 6, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
	}{
		// OpenAI and Groq: durations.
		{"1s", time.Second}, {"6m0s", 6 * time.Minute}, {"20ms", 20 * time.Millisecond}, {"1m30.5s", 90500 * time.Millisecond},
		{"1h2m3.5s", time.Hour + 2*time.Minute + 3500*time.Millisecond}, {"7.66s", 7660 * time.Millisecond}, {"2m59.56s", 179560 * time.Millisecond},
		// Cerebras and Together: seconds.
		{"0.5", 500 * time.Millisecond}, {"12", 12 * time.Second}, {" 2s ", 2 * time.Second}, {"33011.382867", 33011382867 * time.Microsecond},
		// OpenRouter: Unix milliseconds; others Unix seconds.
		{strconv.FormatInt(now.Add(90*time.Second).UnixMilli(), 10), 90 * time.Second},
		{strconv.FormatInt(now.Add(6*time.Hour).Unix(), 10), 6 * time.Hour},
		// Anthropic: RFC 3339; an HTTP date.
		{now.Add(30 * time.Second).Format(time.RFC3339), 30 * time.Second},
		{now.Add(1500 * time.Millisecond).In(time.FixedZone("", -5*3600)).Format(time.RFC3339Nano), 1500 * time.Millisecond},
		{now.Add(time.Minute).Format(http.TimeFormat), time.Minute},
		// Past, over a day, garbage.
		{strconv.FormatInt(now.Add(-time.Second).UnixMilli(), 10), 0},
		{strconv.FormatInt(now.Add(48*time.Hour).UnixMilli(), 10), 0},
		{strconv.FormatInt(now.Add(-time.Hour).Unix(), 10), 0},
		{now.Add(-time.Second).Format(time.RFC3339), 0},
		{now.Add(25 * time.Hour).Format(time.RFC3339), 0},
		{"600000", 0}, // milliseconds from now, which no provider sends: over a day as seconds, in 1970 as a time
		{"", 0}, {"0s", 0}, {"-1s", 0}, {"-3", 0}, {"soon", 0}, {"48h", 0}, {"1e12", 0}, {"1e300", 0}, {"NaN", 0}, {"Inf", 0},
	}
	for _, tt := range tests {
		if got := parseReset(tt.in, now); got != tt.want {
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

// TestParseProviders: each provider's headers, as it documents them, give
// the windows they say.
func TestParseProviders(t *testing.T) {
	now := time.Date(2026, 12, 4, 6, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		headers map[string]string
		want    Report
	}{
		{"OpenAI", map[string]string{
			"x-ratelimit-limit-requests": "60", "x-ratelimit-remaining-requests": "59", "x-ratelimit-reset-requests": "1s",
			"x-ratelimit-limit-tokens": "150000", "x-ratelimit-remaining-tokens": "149984", "x-ratelimit-reset-tokens": "6m0s",
		}, Report{HasRequests: true, Requests: 59, RequestsReset: time.Second, RequestsLimit: 60,
			HasTokens: true, Tokens: 149984, TokensReset: 6 * time.Minute, TokensLimit: 150000}},
		{"OpenAI: a limit not above what is left is no size to refill to", map[string]string{
			"x-ratelimit-limit-requests": "59", "x-ratelimit-remaining-requests": "59", "x-ratelimit-reset-requests": "1s",
			"x-ratelimit-limit-tokens": "lots", "x-ratelimit-remaining-tokens": "5", "x-ratelimit-reset-tokens": "1s",
		}, Report{HasRequests: true, Requests: 59, RequestsReset: time.Second, HasTokens: true, Tokens: 5, TokensReset: time.Second}},
		{"Azure OpenAI: no resets", map[string]string{
			"x-ratelimit-remaining-requests": "0", "x-ratelimit-remaining-tokens": "0", "retry-after-ms": "4000", "retry-after": "4",
		}, Report{HasRequests: true, HasTokens: true, RetryAfter: 4 * time.Second}},
		{"Groq", map[string]string{
			"x-ratelimit-limit-requests": "14400", "x-ratelimit-remaining-requests": "14370", "x-ratelimit-reset-requests": "2m59.56s",
			"x-ratelimit-limit-tokens": "18000", "x-ratelimit-remaining-tokens": "17997", "x-ratelimit-reset-tokens": "10ms",
		}, Report{HasRequests: true, Requests: 14370, RequestsReset: 179560 * time.Millisecond, RequestsLimit: 14400,
			HasTokens: true, Tokens: 17997, TokensReset: 10 * time.Millisecond, TokensLimit: 18000}},
		{"Cerebras: no size, the limit may refill all at once", map[string]string{
			"x-ratelimit-limit-tokens-minute": "60000", "x-ratelimit-remaining-tokens-minute": "59000", "x-ratelimit-reset-tokens-minute": "11.25",
		}, Report{HasTokens: true, Tokens: 59000, TokensReset: 11250 * time.Millisecond}},
		{"Cerebras: the day's requests run out", map[string]string{
			"x-ratelimit-remaining-requests-day": "0", "x-ratelimit-reset-requests-day": "33011.5",
			"x-ratelimit-remaining-tokens-minute": "59000", "x-ratelimit-reset-tokens-minute": "11.25",
		}, Report{HasRequests: true, RequestsReset: 33011500 * time.Millisecond, HasTokens: true, Tokens: 59000, TokensReset: 11250 * time.Millisecond}},
		{"Cerebras: the minute is tighter than the day", map[string]string{
			"x-ratelimit-remaining-requests-day": "9500", "x-ratelimit-reset-requests-day": "33011.5",
			"x-ratelimit-remaining-requests-minute": "3", "x-ratelimit-reset-requests-minute": "45.5",
		}, Report{HasRequests: true, Requests: 3, RequestsReset: 45500 * time.Millisecond}},
		{"Anthropic", map[string]string{
			"anthropic-ratelimit-requests-limit": "50", "anthropic-ratelimit-requests-remaining": "0", "anthropic-ratelimit-requests-reset": "2026-12-04T06:00:12Z",
			"anthropic-ratelimit-tokens-limit": "80000", "anthropic-ratelimit-tokens-remaining": "8000", "anthropic-ratelimit-tokens-reset": "2026-12-04T06:00:40.5Z",
			"retry-after": "12",
		}, Report{HasRequests: true, RequestsReset: 12 * time.Second, RequestsLimit: 50,
			HasTokens: true, Tokens: 8000, TokensReset: 40500 * time.Millisecond, TokensLimit: 80000, RetryAfter: 12 * time.Second}},
		{"OpenRouter", map[string]string{
			"X-RateLimit-Limit": "20", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": strconv.FormatInt(now.Add(8*time.Second).UnixMilli(), 10),
		}, Report{HasRequests: true, RequestsReset: 8 * time.Second}},
		{"OpenRouter, read against the server's Date", map[string]string{
			"Date":                  now.Add(-time.Hour).Format(http.TimeFormat),
			"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": strconv.FormatInt(now.Add(-time.Hour+8*time.Second).UnixMilli(), 10),
		}, Report{HasRequests: true, RequestsReset: 8 * time.Second}},
		{"Together", map[string]string{
			"x-ratelimit-remaining": "0", "x-ratelimit-reset": "1",
		}, Report{HasRequests: true, RequestsReset: time.Second}},
		{"a reset in the past", map[string]string{
			"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": strconv.FormatInt(now.Add(-time.Minute).UnixMilli(), 10),
		}, Report{HasRequests: true}},
		{"none (vLLM, llama.cpp, Ollama, DeepSeek)", map[string]string{"Content-Type": "text/event-stream"}, Report{}},
	}
	for _, tt := range tests {
		h := http.Header{}
		for k, v := range tt.headers {
			h.Set(k, v)
		}
		if got := Parse(h, now); got != tt.want {
			t.Errorf("%s: Parse = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestBodyRetryAfter(t *testing.T) {
	tests := []struct {
		body string
		want time.Duration
	}{
		{`{"error":{"message":"Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Used 29000, Requested 2000. Please try again in 2s. Visit https://platform.openai.com/account/rate-limits to learn more.","type":"tokens","code":"rate_limit_exceeded"}}`, 2 * time.Second},
		{`{"error":{"message":"Please try again in 6ms.","code":"rate_limit_exceeded"}}`, 6 * time.Millisecond},
		{`{"error":{"message":"Rate limit reached for model llama-3.3-70b-versatile on tokens per day (TPD): Limit 100000, Used 99000. Please try again in 1m23.5s.","type":"tokens","code":"rate_limit_exceeded"}}`, 83500 * time.Millisecond},
		{`[{"error":{"code":429,"message":"You exceeded your current quota.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure"},{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"41s"}]}}]`, 41 * time.Second},
		{`{"error":{"details":[{"retryDelay": "0.5s"}]}}`, 500 * time.Millisecond},
		// Azure API Management's rate-limit and llm-token-limit policies,
		// whose header may be renamed (retry-after-header-name), and
		// Azure OpenAI's own 429, in words.
		{`{ "statusCode": 429, "message": "Token limit is exceeded. Try again in 59 seconds." }`, 59 * time.Second},
		{`{ "statusCode": 429, "message": "Rate limit is exceeded. Try again in 1 second." }`, time.Second},
		{`{"error":{"code":"429","message":"Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-10-21 have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 37 seconds. Please go here: https://aka.ms/oai/quotaincrease if you would like to further increase the default rate limit."}}`, 37 * time.Second},
		// Moonshot's limit per minute, in its words; its tokens per day
		// name no wait.
		{`{"error":{"message":"Your account org-5f0c2a <ak-f94zc> request reached organization max RPM: 20, please try again after 1 seconds","type":"rate_limit_reached_error"}}`, time.Second},
		{`{"error":{"message":"Your account org-5f0c2a <ak-f94zc> request reached organization TPD rate limit, current: 1526210, limit: 1500000","type":"rate_limit_reached_error"}}`, 0},
		{`{"error":{"message":"Please retry after 90000 seconds."}}`, 0},
		{`{"error":{"message":"Please try again in 48h."}}`, 0},
		{`{"error":{"message":"Please try again later."}}`, 0},
		{`{"error":{"message":"Rate limit exceeded"}}`, 0},
		{``, 0},
	}
	for _, tt := range tests {
		if got := BodyRetryAfter([]byte(tt.body)); got != tt.want {
			t.Errorf("BodyRetryAfter(%s) = %v, want %v", tt.body, got, tt.want)
		}
	}
}

// TestParseJoined: a header that a proxy repeated or joined with commas
// counts by its most restrictive value: the least left and the smallest
// size, the latest reset, the longest wait; an HTTP date keeps its comma.
func TestParseJoined(t *testing.T) {
	now := time.Date(2026, 12, 4, 6, 0, 0, 0, time.UTC)
	h := http.Header{}
	h.Set("x-ratelimit-limit-tokens", "30000, 90000")
	h.Set("x-ratelimit-remaining-tokens", "80000,5000")
	h.Set("x-ratelimit-reset-tokens", "2s, 50s, soon")
	h.Add("x-ratelimit-remaining-requests", "9")
	h.Add("x-ratelimit-remaining-requests", "2")
	h.Set("x-ratelimit-reset-requests", "1s")
	h.Set("Retry-After", "3, 20")
	want := Report{HasRequests: true, Requests: 2, RequestsReset: time.Second,
		HasTokens: true, Tokens: 5000, TokensReset: 50 * time.Second, TokensLimit: 30000, RetryAfter: 20 * time.Second}
	if got := Parse(h, now); got != want {
		t.Errorf("Parse(joined) = %+v, want %+v", got, want)
	}
	for _, tt := range []struct {
		name, value string
		want        time.Duration
	}{
		{"Retry-After-Ms", "250, 4000", 4 * time.Second},
		{"Retry-After", now.Add(time.Minute).Format(http.TimeFormat), time.Minute},
		{"Retry-After", "-1, 7", 7 * time.Second},
	} {
		h := http.Header{}
		h.Set(tt.name, tt.value)
		if got := RetryAfter(h, now); got != tt.want {
			t.Errorf("RetryAfter(%s: %s) = %v, want %v", tt.name, tt.value, got, tt.want)
		}
	}
}

package tokenpace_test

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// providerAnswer is what a provider's server answers to one request: a
// status other than 200 is answered with body alone (no model runs), a
// 200 by the simulator; headers are set on either.
type providerAnswer struct {
	status  int
	headers map[string]string
	body    string
}

// providerRoute returns a route named name (FollowServer) to its own
// in-memory simulator, whose i-th response (from 0) is answer(i, now) as
// a provider would send it; answer is called under a lock.
func providerRoute(t *testing.T, name string, answer func(i int, now time.Time) providerAnswer) tokenpace.Route {
	t.Helper()
	ts := simulate.StartInMemory(t, simulate.WithModel("m", &simulate.Fixed{TTFT: 50 * msec, ITL: 10 * msec}), replyWords(3))
	next := ts.Client.Transport
	var mu sync.Mutex
	n := 0
	hc := &http.Client{Transport: roundTripFunc(func(req *http.Request) (*http.Response, error) {
		mu.Lock()
		a := answer(n, time.Now())
		n++
		mu.Unlock()
		var res *http.Response
		if a.status != 0 && a.status != http.StatusOK {
			res = &http.Response{StatusCode: a.status, Status: http.StatusText(a.status), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
				Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(a.body)), Request: req}
		} else {
			var err error
			if res, err = next.RoundTrip(req); err != nil {
				return nil, err
			}
		}
		for k, v := range a.headers {
			res.Header.Set(k, v)
		}
		return res, nil
	})}
	oc := openaiClient(ts.URL, hc)
	return tokenpace.Route{Name: name, Client: &oc, Model: "m", Limit: tokenpace.Limit{FollowServer: true}}
}

// tooMany is a 429 as OpenAI words it, with headers.
func tooMany(headers map[string]string) providerAnswer {
	return providerAnswer{status: http.StatusTooManyRequests, headers: headers,
		body: `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`}
}

// targetsAt makes a call of r at each offset from start and returns the
// route that answered each.
func targetsAt(t *testing.T, r *tokenpace.Router, start time.Time, at ...time.Duration) []string {
	t.Helper()
	var got []string
	for _, d := range at {
		time.Sleep(d - time.Since(start))
		got = append(got, callOK(t, r, chat("m", 3)).Target)
	}
	return got
}

// TestFollowServerHugeRetryAfter: a 429 whose Retry-After asks for a
// year (in seconds, milliseconds or as a date) is not believed: the
// route is tried again by the next call, instead of being skipped for a
// year, and a call on its only route is answered instead of waiting for
// its context to end.
func TestFollowServerHugeRetryAfter(t *testing.T) {
	const year = 365 * 24 * time.Hour
	for _, tt := range []struct {
		name    string
		headers func(now time.Time) map[string]string
	}{
		{"seconds", func(time.Time) map[string]string { return map[string]string{"Retry-After": "31536000"} }},
		{"milliseconds", func(time.Time) map[string]string { return map[string]string{"retry-after-ms": "31536000000"} }},
		{"date", func(now time.Time) map[string]string {
			return map[string]string{"Retry-After": now.Add(year).UTC().Format(http.TimeFormat)}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				answer := func(i int, now time.Time) providerAnswer {
					if i == 0 {
						return tooMany(tt.headers(now))
					}
					return providerAnswer{}
				}
				r := primaryAndBackup(t, answer)
				start := time.Now()
				got := targetsAt(t, r, start, 0, time.Second)
				if want := []string{"backup", "primary"}; !slices.Equal(got, want) || time.Since(start) > 2*time.Second {
					t.Errorf("targets = %v after %v, want %v within 2s (the year not believed)", got, time.Since(start), want)
				}

				only, err := tokenpace.NewRouter(tokenpace.NewClient(openai.NewClient()), tokenpace.Policy{},
					providerRoute(t, "only", answer))
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
				defer cancel()
				s := only.NewStreaming(ctx, chat("m", 3))
				readAll(t, s)
				if s.Err() == nil {
					t.Fatal("first call on the only route: nil error, want its 429")
				}
				start = time.Now()
				s = only.NewStreaming(ctx, chat("m", 3))
				readAll(t, s)
				if err := s.Err(); err != nil || time.Since(start) > time.Second {
					t.Errorf("second call on the only route: %v after %v, want an answer at once", err, time.Since(start))
				}
			})
		})
	}
}

// TestFollowServerRetryAfterDateSkew: a server answering 429 for 30 s
// with Retry-After as an HTTP date (nginx's limit_req, Cloudflare), its
// clock 10 minutes off the client's. The wait is read against the
// response's Date: the route is skipped for those 30 s, without a second
// 429, and taken again after them, whichever way the clocks differ.
func TestFollowServerRetryAfterDateSkew(t *testing.T) {
	for _, skew := range []time.Duration{10 * time.Minute, -10 * time.Minute} {
		t.Run(skew.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var until time.Time // on the server's clock
				var limited []int   // the requests answered 429
				answer := func(i int, now time.Time) providerAnswer {
					server := now.Add(skew)
					if until.IsZero() {
						until = server.Add(30 * time.Second)
					}
					if server.Before(until) {
						limited = append(limited, i)
						return tooMany(map[string]string{"Date": server.UTC().Format(http.TimeFormat), "Retry-After": until.UTC().Format(http.TimeFormat)})
					}
					return providerAnswer{}
				}
				r := primaryAndBackup(t, answer)
				got := targetsAt(t, r, time.Now(), 0, time.Second, 31*time.Second)
				if want := []string{"backup", "backup", "primary"}; !slices.Equal(got, want) {
					t.Errorf("targets = %v, want %v", got, want)
				}
				if want := []int{0}; !slices.Equal(limited, want) {
					t.Errorf("requests answered 429 = %v, want %v (skipped while limited)", limited, want)
				}
			})
		})
	}
}

// TestFollowServerProviderHeaders: a server whose window admits one
// request for 8 s and says so in its own provider's headers, answering
// 429 (without Retry-After) to any other request before the reset. A
// route following it skips it until the reset, without a 429, and takes
// it again after.
func TestFollowServerProviderHeaders(t *testing.T) {
	const window = 8 * time.Second
	for _, tt := range []struct {
		name    string
		headers func(reset time.Time) map[string]string
	}{
		{"OpenAI", func(reset time.Time) map[string]string {
			return map[string]string{"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": time.Until(reset).String()}
		}},
		{"OpenRouter", func(reset time.Time) map[string]string {
			return map[string]string{"X-RateLimit-Limit": "1", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": strconv.FormatInt(reset.UnixMilli(), 10)}
		}},
		{"Together", func(reset time.Time) map[string]string {
			return map[string]string{"x-ratelimit-remaining": "0", "x-ratelimit-reset": strconv.FormatFloat(time.Until(reset).Seconds(), 'f', -1, 64)}
		}},
		{"Cerebras", func(reset time.Time) map[string]string {
			return map[string]string{"x-ratelimit-remaining-requests-day": "0", "x-ratelimit-reset-requests-day": strconv.FormatFloat(time.Until(reset).Seconds(), 'f', -1, 64)}
		}},
		{"Anthropic", func(reset time.Time) map[string]string {
			return map[string]string{"anthropic-ratelimit-requests-remaining": "0", "anthropic-ratelimit-requests-reset": reset.UTC().Format(time.RFC3339)}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var reset time.Time
				var limited []int
				answer := func(i int, now time.Time) providerAnswer {
					switch {
					case reset.IsZero():
						reset = now.Add(window)
						return providerAnswer{headers: tt.headers(reset)}
					case now.Before(reset):
						limited = append(limited, i)
						return tooMany(tt.headers(reset))
					}
					return providerAnswer{}
				}
				r := primaryAndBackup(t, answer)
				got := targetsAt(t, r, time.Now(), 0, time.Second, window+time.Second)
				if want := []string{"primary", "backup", "primary"}; !slices.Equal(got, want) {
					t.Errorf("targets = %v, want %v", got, want)
				}
				if len(limited) > 0 {
					t.Errorf("requests answered 429 = %v, want none (skipped until the reset)", limited)
				}
			})
		})
	}
}

// TestFollowServerBodyRetryAfter: a server answering 429 for 8 s, saying
// how long only in its body (Gemini's retryDelay, OpenAI's words). A
// route following it is skipped for those 8 s without another 429, the
// caller still reads the 429's error, and the route is taken after.
func TestFollowServerBodyRetryAfter(t *testing.T) {
	for _, tt := range []struct{ name, body, message string }{
		{"Gemini", `[{"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"8s"}]}}]`, ""},
		// Azure API Management's llm-token-limit with its header renamed
		// (retry-after-header-name): the wait in the body's words, the
		// message at the top level, given to the caller as openai-go's.
		{"APIM", `{ "statusCode": 429, "message": "Token limit is exceeded. Try again in 8 seconds." }`,
			"Token limit is exceeded. Try again in 8 seconds."},
		// claude-code-router relaying Gemini's 429: Gemini's body as text
		// in its own message, then the stack trace that repeats it.
		{"claude-code-router", "{\"error\":{\"message\":\"Error from provider(gemini,gemini-2.5-flash: 429): {\\n  \\\"error\\\": {\\n    \\\"code\\\": 429,\\n    \\\"message\\\": \\\"You exceeded your current quota, please check your plan and billing details.\\\",\\n    \\\"status\\\": \\\"RESOURCE_EXHAUSTED\\\",\\n    \\\"details\\\": [\\n      {\\n        \\\"@type\\\": \\\"type.googleapis.com/google.rpc.RetryInfo\\\",\\n        \\\"retryDelay\\\": \\\"8s\\\"\\n      }\\n    ]\\n  }\\n}\\nError: Error from provider(gemini,gemini-2.5-flash: 429): {\\n  \\\"error\\\": {\\n    \\\"code\\\": 429,\\n    \\\"message\\\": \\\"You exceeded your current quota, please check your plan and billing details.\\\",\\n    \\\"status\\\": \\\"RESOURCE_EXHAUSTED\\\",\\n    \\\"details\\\": [\\n      {\\n        \\\"@type\\\": \\\"type.googleapis.com/google.rpc.RetryInfo\\\",\\n        \\\"retryDelay\\\": \\\"8s\\\"\\n      }\\n    ]\\n  }\\n}\\n\\n    at sendRequestToProvider (server.cjs:1180:11)\",\"type\":\"api_error\",\"code\":\"provider_response_error\"}}",
			"You exceeded your current quota, please check your plan and billing details."},
		{"OpenAI", `{"error":{"message":"Rate limit reached for gpt-4o-mini in organization org-x on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 8s. Visit https://platform.openai.com/account/rate-limits to learn more.","type":"requests","param":null,"code":"rate_limit_exceeded"}}`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var until time.Time
				var limited []int
				answer := func(i int, now time.Time) providerAnswer {
					if until.IsZero() {
						until = now.Add(8 * time.Second)
					}
					if now.Before(until) {
						limited = append(limited, i)
						return providerAnswer{status: http.StatusTooManyRequests, body: tt.body}
					}
					return providerAnswer{}
				}
				r := primaryAndBackup(t, answer)
				tm := callOK(t, r, chat("m", 3))
				// The 429 reaches the caller, its body whole (openai-go
				// keeps an object's, not Gemini's array), or its message.
				var ae *openai.Error
				if !errorsAs(tm.Attempts[0].Err, &ae) || ae.StatusCode != http.StatusTooManyRequests ||
					tt.message == "" && strings.HasPrefix(tt.body, "{") && !strings.Contains(string(ae.DumpResponse(true)), tt.body) ||
					tt.message != "" && ae.Message != tt.message {
					t.Errorf("first attempt's error = %v, want the 429 with its body", tm.Attempts[0].Err)
				}
				got := targetsAt(t, r, time.Now(), time.Second, 9*time.Second)
				if want := []string{"backup", "primary"}; !slices.Equal(got, want) {
					t.Errorf("targets = %v, want %v", got, want)
				}
				if want := []int{0}; !slices.Equal(limited, want) {
					t.Errorf("requests answered 429 = %v, want %v", limited, want)
				}
			})
		})
	}
}

// primaryAndBackup returns a Router with a TTFT budget of 1 s over a
// provider that answers as answer says ("primary") and a simulated
// backup ("backup").
func primaryAndBackup(t *testing.T, answer func(i int, now time.Time) providerAnswer) *tokenpace.Router {
	t.Helper()
	r, err := tokenpace.NewRouter(tokenpace.NewClient(openai.NewClient()),
		tokenpace.Policy{Budget: tokenpace.Budget{TTFT: time.Second}},
		providerRoute(t, "primary", answer), simRoute(t, "backup"))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

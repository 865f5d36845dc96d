package simulate_test

import (
	"fmt"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
)

// rateHeaders is what a response says of the server's rate limit.
type rateHeaders struct {
	status             int
	remReq, remTok     string
	resetReq, resetTok string
	retry, retryMS     string
	limitReq, limitTok string
}

// postRate posts body to ts's chat completions and returns what the
// response says of the rate limit.
func postRate(t *testing.T, ts *simulate.TestServer, body string) rateHeaders {
	t.Helper()
	x := post(t, ts, "/v1/chat/completions", body, nil)
	h := x.header
	return rateHeaders{x.status, h.Get("X-Ratelimit-Remaining-Requests"), h.Get("X-Ratelimit-Remaining-Tokens"),
		h.Get("X-Ratelimit-Reset-Requests"), h.Get("X-Ratelimit-Reset-Tokens"), h.Get("Retry-After"), h.Get("Retry-After-Ms"),
		h.Get("X-Ratelimit-Limit-Requests"), h.Get("X-Ratelimit-Limit-Tokens")}
}

// TestRateLimitHeaders: every response reports what its buckets have
// left and when they are full again, as OpenAI does; they refill
// continuously, each at its size per window, so that a request that
// found no room fits once enough has refilled, not only when the bucket
// is full; a request over the limit gets 429 with Retry-After and
// retry-after-ms, the time until it fits, and is not counted.
func TestRateLimitHeaders(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := simulate.StartInMemory(t, simulate.WithModel("m", &simulate.Fixed{TTFT: ms(100), ITL: ms(10)}),
			simulate.WithRateLimit(simulate.RateLimit{Requests: 2, Tokens: 100, Window: time.Second}))
		body := fmt.Sprintf(streamBody, 4) // 13 prompt tokens (as the server counts them) + max_tokens 4
		check := func(name string, want rateHeaders) {
			t.Helper()
			want.limitReq, want.limitTok = "2", "100"
			if got := postRate(t, ts, body); got != want {
				t.Errorf("%s: %+v, want %+v", name, got, want)
			}
		}
		// 2 requests and 100 tokens refill a second: one request in 500
		// ms, 17 tokens in 170 ms.
		check("first", rateHeaders{status: http.StatusOK, remReq: "1", remTok: "83", resetReq: "500ms", resetTok: "170ms"})
		// Each stream takes 130 ms, refilling 0.26 requests and 13 tokens; a 429 none.
		check("second", rateHeaders{status: http.StatusOK, remReq: "0", remTok: "79", resetReq: "870ms", resetTok: "210ms"})
		// 1.48 requests used: the third fits once 0.48 more refill.
		check("third", rateHeaders{status: http.StatusTooManyRequests, remReq: "0", remTok: "92", resetReq: "740ms", resetTok: "80ms",
			retry: "1", retryMS: "240"})
		time.Sleep(240 * time.Millisecond)
		check("refilled enough", rateHeaders{status: http.StatusOK, remReq: "0", remTok: "83", resetReq: "1s", resetTok: "170ms"})
	})
}

// TestRateLimitRefillsGradually: with 30,000 tokens a minute of which
// 25,000 are used, the server reports 5,000 left and 50 s until full, as
// OpenAI would; a request of 10,000 tokens is admitted 10 s later (5,000
// more refilled), not only after 50 s.
func TestRateLimitRefillsGradually(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := simulate.StartInMemory(t, simulate.WithModel("m", &simulate.Fixed{TTFT: ms(100), ITL: ms(10)}),
			simulate.WithReply(func(simulate.ReplyInfo) (string, bool) { return "ok", true }),
			simulate.WithRateLimit(simulate.RateLimit{Tokens: 30000}))
		start := time.Now()
		if got := postRate(t, ts, fmt.Sprintf(streamBody, 25000-13)); got.status != http.StatusOK || got.remTok != "5000" || got.resetTok != "50s" {
			t.Fatalf("25,000 tokens: %+v, want 200, 5000 left, reset 50s", got)
		}
		need := fmt.Sprintf(streamBody, 10000-13)
		time.Sleep(10*time.Second - time.Millisecond - time.Since(start))
		if got := postRate(t, ts, need); got.status != http.StatusTooManyRequests || got.retryMS != "1" {
			t.Errorf("10,000 tokens 1 ms early: %+v, want 429 retry-after-ms 1", got)
		}
		time.Sleep(10*time.Second - time.Since(start))
		if got := postRate(t, ts, need); got.status != http.StatusOK || got.remTok != "0" || got.resetTok != "1m0s" {
			t.Errorf("10,000 tokens 10 s on: %+v, want 200, 0 left, reset 1m0s", got)
		}
	})
}

func TestRateLimitInvalid(t *testing.T) {
	if _, err := simulate.NewServer(simulate.WithRateLimit(simulate.RateLimit{Requests: -1})); err == nil {
		t.Errorf("NewServer(RateLimit{Requests: -1}) error = nil, want one")
	}
}

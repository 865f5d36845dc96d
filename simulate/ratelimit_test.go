package simulate_test

import (
	"fmt"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
)

// TestRateLimitHeaders: every response reports what its window has left
// and when it refills, as OpenAI does; a request over the limit gets 429
// with Retry-After and retry-after-ms and is not counted; the next window
// admits again.
func TestRateLimitHeaders(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := simulate.StartInMemory(t, simulate.WithModel("m", &simulate.Fixed{TTFT: ms(100), ITL: ms(10)}),
			simulate.WithRateLimit(simulate.RateLimit{Requests: 2, Tokens: 100, Window: time.Second}))
		body := fmt.Sprintf(streamBody, 4) // 13 prompt tokens (as the server counts them) + max_tokens 4
		type want struct {
			status                                int
			remReq, remTok, reset, retry, retryMS string
		}
		check := func(name string, w want) {
			t.Helper()
			x := post(t, ts, "/v1/chat/completions", body, nil)
			h := x.header
			got := want{x.status, h.Get("X-Ratelimit-Remaining-Requests"), h.Get("X-Ratelimit-Remaining-Tokens"),
				h.Get("X-Ratelimit-Reset-Requests"), h.Get("Retry-After"), h.Get("Retry-After-Ms")}
			if got != w {
				t.Errorf("%s: %+v, want %+v", name, got, w)
			}
			if h.Get("X-Ratelimit-Limit-Requests") != "2" || h.Get("X-Ratelimit-Limit-Tokens") != "100" || h.Get("X-Ratelimit-Reset-Tokens") != w.reset {
				t.Errorf("%s: limits %q %q reset-tokens %q, want 2 100 %q", name, h.Get("X-Ratelimit-Limit-Requests"),
					h.Get("X-Ratelimit-Limit-Tokens"), h.Get("X-Ratelimit-Reset-Tokens"), w.reset)
			}
		}
		check("first", want{http.StatusOK, "1", "83", "1s", "", ""})
		// Each stream takes 130 ms; a 429 none.
		check("second", want{http.StatusOK, "0", "66", "870ms", "", ""})
		check("third", want{http.StatusTooManyRequests, "0", "66", "740ms", "1", "740"})
		time.Sleep(740 * time.Millisecond)
		check("next window", want{http.StatusOK, "1", "83", "1s", "", ""})
	})
}

func TestRateLimitInvalid(t *testing.T) {
	if _, err := simulate.NewServer(simulate.WithRateLimit(simulate.RateLimit{Requests: -1})); err == nil {
		t.Errorf("NewServer(RateLimit{Requests: -1}) error = nil, want one")
	}
}

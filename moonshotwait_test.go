package tokenpace_test

import (
	"context"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
)

// TestMoonshotRPMWaitRead: Moonshot's Kimi API answers a request past
// its organization's requests per minute with 429 and no Retry-After,
// the wait only in its words, "please try again after 1 seconds"
// (MoonshotAI/kimi-cli#1599). Timing said no wait, so a Router that
// follows its server's limits (Limit.FollowServer) sent the next request
// at once into the same limit; it now reads the second. Its tokens per
// day, answered at once (see TestQuotaSpentNotSentAgain), name none.
func TestMoonshotRPMWaitRead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, tt := range []struct {
			message string
			want    time.Duration
		}{
			{"Your account org-5f0c2a <ak-f94zc> request reached organization max RPM: 20, please try again after 1 seconds", time.Second},
			{"Your account org-5f0c2a <ak-f94zc> request reached organization TPD rate limit, current: 1526210, limit: 1500000", 0},
		} {
			url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json; charset=utf-8")
				w.WriteHeader(http.StatusTooManyRequests)
				_, _ = w.Write([]byte(`{"error":{"message":"` + tt.message + `","type":"rate_limit_reached_error"}}`))
			}))
			s := tokenpace.NewClient(openaiClient(url, hc)).NewStreaming(context.Background(), chat("kimi-k2.6", 16), option.WithMaxRetries(0))
			for s.Next() {
			}
			checkKind(t, s.Err(), tokenpace.KindRequest)
			tm := s.Timing()
			if len(tm.HTTP) != 1 || tm.HTTP[0].RetryAfter != tt.want {
				t.Errorf("%q: Timing().HTTP = %+v, want one request asking to wait %v", tt.message, tm.HTTP, tt.want)
			}
		}
	})
}

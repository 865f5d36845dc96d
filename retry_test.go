package tokenpace_test

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// TestRouterOwnsRetries: openai-go's own retries (default options) do not
// hold a fallback back. A primary answering 429 with Retry-After 1 s and
// no budget: the call moves on at once. With a TTFT budget the wait fits
// in, the Router retries the same route after the wait instead.
func TestRouterOwnsRetries(t *testing.T) {
	tests := []struct {
		name      string
		budget    tokenpace.Budget
		retryFor  time.Duration // the primary's first answer: 429 with this Retry-After
		wantTTFT  time.Duration
		wantKinds []tokenpace.AttemptKind
		wantText  string
		wantHTTP  []int
	}{
		{name: "no budget: fall back", retryFor: time.Second, wantTTFT: 50 * msec,
			wantKinds: []tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptFallback},
			wantText:  "S1 S2 S3", wantHTTP: []int{429, 200}},
		{name: "wait over budget: fall back", budget: tokenpace.Budget{TTFT: 500 * msec}, retryFor: time.Second, wantTTFT: 50 * msec,
			wantKinds: []tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptFallback},
			wantText:  "S1 S2 S3", wantHTTP: []int{429, 200}},
		{name: "wait within budget: retry", budget: tokenpace.Budget{TTFT: 500 * msec}, retryFor: 200 * msec, wantTTFT: 300 * msec,
			wantKinds: []tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptRetry},
			wantText:  "B1 B2 B3", wantHTTP: []int{429, 200}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ts := simulate.StartInMemory(t,
					simulate.WithModel("big", &simulate.Fixed{TTFT: 100 * msec, ITL: 10 * msec}),
					simulate.WithModel("small", &simulate.Fixed{TTFT: 50 * msec, ITL: 10 * msec}),
					replyByModel(3),
					simulate.WithFaults(simulate.Faults{Script: func(i uint64) simulate.Fault {
						if i == 0 {
							return simulate.Fault{Kind: simulate.FaultRateLimit, For: tt.retryFor}
						}
						return simulate.Fault{}
					}}))
				// openai-go's default options: it would retry a 429.
				oc := openai.NewClient(option.WithBaseURL(ts.URL), option.WithHTTPClient(ts.Client), option.WithAPIKey("sk-test-secret"))
				big := route("big")
				big.Budget = tt.budget
				r, err := tokenpace.NewRouter(tokenpace.NewClient(oc), tokenpace.Policy{}, big, route("small"))
				if err != nil {
					t.Fatal(err)
				}
				s := r.NewStreaming(context.Background(), chat("big", 3))
				if got := readAll(t, s); got != tt.wantText {
					t.Errorf("content = %q, want %q", got, tt.wantText)
				}
				if err := s.Err(); err != nil {
					t.Fatalf("Err() = %v, want nil", err)
				}
				tm := s.Timing()
				if got := tm.TTFT(); got != tt.wantTTFT {
					t.Errorf("TTFT() = %v, want %v", got, tt.wantTTFT)
				}
				if got := kinds(tm); !slices.Equal(got, tt.wantKinds) {
					t.Errorf("kinds = %v, want %v", got, tt.wantKinds)
				}
				var status []int
				for _, h := range tm.HTTP {
					status = append(status, h.Status)
				}
				if !slices.Equal(status, tt.wantHTTP) {
					t.Fatalf("HTTP statuses = %v, want %v", status, tt.wantHTTP)
				}
				if got := tm.HTTP[0].RetryAfter; got != tt.retryFor {
					t.Errorf("HTTP[0].RetryAfter = %v, want %v", got, tt.retryFor)
				}
			})
		})
	}
}

// bodyOnly429 answers its first request 429 with the wait in its body
// only, as Gemini's OpenAI-compatible endpoint, OpenAI and Groq may, and
// passes the others to next.
type bodyOnly429 struct {
	next http.RoundTripper
	n    atomic.Int32
}

func (b *bodyOnly429) RoundTrip(r *http.Request) (*http.Response, error) {
	if b.n.Add(1) > 1 {
		return b.next.RoundTrip(r)
	}
	return &http.Response{StatusCode: http.StatusTooManyRequests, Header: http.Header{"Content-Type": {"application/json"}}, Request: r,
		Body: io.NopCloser(strings.NewReader(`{"error":{"message":"Rate limit reached for requests. Please try again in 200ms.","type":"requests","code":"rate_limit_exceeded"}}`))}, nil
}

// TestRouterRetriesAfterBodyWait: a 429 that names its wait only in its
// body (200 ms) within the route's TTFT budget (500 ms) is retried on the
// same route after that wait, as one with Retry-After is, and the wait is
// the attempt's HTTPAttempt.RetryAfter; before, the Router saw no wait
// and fell back.
func TestRouterRetriesAfterBodyWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := simulate.StartInMemory(t,
			simulate.WithModel("big", &simulate.Fixed{TTFT: 100 * msec, ITL: 10 * msec}),
			simulate.WithModel("small", &simulate.Fixed{TTFT: 50 * msec, ITL: 10 * msec}),
			replyByModel(3))
		hc := &http.Client{Transport: &bodyOnly429{next: ts.Client.Transport}}
		oc := openai.NewClient(option.WithBaseURL(ts.URL), option.WithHTTPClient(hc), option.WithAPIKey("sk-test-secret"))
		big := route("big")
		big.Budget = tokenpace.Budget{TTFT: 500 * msec}
		r, err := tokenpace.NewRouter(tokenpace.NewClient(oc), tokenpace.Policy{}, big, route("small"))
		if err != nil {
			t.Fatal(err)
		}
		s := r.NewStreaming(context.Background(), chat("big", 3))
		if got := readAll(t, s); got != "B1 B2 B3" || s.Err() != nil {
			t.Fatalf("content = %q, Err() = %v; want \"B1 B2 B3\", nil (big, retried)", got, s.Err())
		}
		tm := s.Timing()
		if got, want := kinds(tm), []tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptRetry}; !slices.Equal(got, want) {
			t.Errorf("kinds = %v, want %v", got, want)
		}
		if got := tm.HTTP[0].RetryAfter; got != 200*msec {
			t.Errorf("HTTP[0].RetryAfter = %v, want 200ms", got)
		}
		if got := tm.TTFT(); got != 300*msec {
			t.Errorf("TTFT() = %v, want 300ms (the 200 ms wait, then big's 100 ms)", got)
		}
	})
}

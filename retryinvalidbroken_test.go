package tokenpace_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// TestRetryInvalidKeepsLastBrokenOutput: with RetryInvalid, each route's
// output waits for its validation; both routes' streams break after three
// tokens. The first falls back to the second; the second, with no route
// left, gives the caller its text so far and its error, as a Client's
// caller keeps the text so far (before: no text at all, the error alone).
func TestRetryInvalidKeepsLastBrokenOutput(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cut := []option.RequestOption{withFault("truncated;after=3")}
		first, second := route("small"), route("big")
		first.Options, second.Options = cut, cut
		r := router(t, tokenpace.Policy{Validator: func(string) error { return nil }, RetryInvalid: true},
			[]simulate.Option{simulate.WithModel("small", &simulate.Fixed{TTFT: 30 * msec, ITL: 10 * msec}),
				simulate.WithModel("big", &simulate.Fixed{TTFT: 50 * msec, ITL: 20 * msec})},
			first, second)
		s := r.NewStreaming(context.Background(), chat("small", 16))
		text := readAll(t, s)
		var se *tokenpace.StreamError
		if text == "" || !errors.As(s.Err(), &se) || se.Kind != tokenpace.KindTruncated {
			t.Fatalf("caller got %q, %v; want the second route's text so far and a truncation", text, s.Err())
		}
		tm := s.Timing()
		if got := kinds(tm); !slices.Equal(got, []tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptFallback}) {
			t.Errorf("attempts %v, want first then fallback", got)
		}
		if tm.Target != "big" || tm.TTFT() <= 0 {
			t.Errorf("Target %q, TTFT %v; want big's output and its first token", tm.Target, tm.TTFT())
		}
	})
}

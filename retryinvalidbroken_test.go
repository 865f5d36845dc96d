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

// TestRetryInvalidBrokenAfterEmpty: the first route answers without
// output, a content filter's empty answer; the second's output, waiting
// for its validation, breaks after three tokens with no route left. The
// caller gets that text and its error, as without RetryInvalid, where it
// streams (before: the first route's empty answer, and no error).
func TestRetryInvalidBrokenAfterEmpty(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		empty := "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"small\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":\"content_filter\"}]}\n\ndata: [DONE]\n\n"
		first, second := route("small"), route("big")
		first.Options = []option.RequestOption{replaced(empty)}
		second.Options = []option.RequestOption{withFault("truncated;after=3")}
		for _, retry := range []bool{false, true} {
			// A simulator of its own each time: its models keep state.
			sopts := []simulate.Option{simulate.WithModel("small", &simulate.Fixed{TTFT: 30 * msec, ITL: 10 * msec}),
				simulate.WithModel("big", &simulate.Fixed{TTFT: 50 * msec, ITL: 20 * msec})}
			r := router(t, tokenpace.Policy{Validator: func(string) error { return nil }, RetryInvalid: retry}, sopts, first, second)
			s := r.NewStreaming(context.Background(), chat("small", 16))
			text := readAll(t, s)
			var se *tokenpace.StreamError
			if text == "" || !errors.As(s.Err(), &se) || se.Kind != tokenpace.KindTruncated || s.Timing().Target != "big" {
				t.Errorf("RetryInvalid %v: caller got %q, %v (Target %q); want big's text so far and a truncation", retry, text, s.Err(), s.Timing().Target)
			}
		}
	})
}

// TestRetryInvalidLastRejectedDelivered: every route's output is
// rejected; the last one, with no route left to retry, reaches the caller
// with its rejection, as without RetryInvalid (Policy.RetryInvalid).
func TestRetryInvalidLastRejectedDelivered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := router(t, tokenpace.Policy{Validator: func(string) error { return errors.New("rejected") }, RetryInvalid: true},
			[]simulate.Option{simulate.WithModel("small", &simulate.Fixed{TTFT: 30 * msec, ITL: 10 * msec}),
				simulate.WithModel("big", &simulate.Fixed{TTFT: 50 * msec, ITL: 20 * msec})},
			route("small"), route("big"))
		s := r.NewStreaming(context.Background(), chat("small", 16))
		text := readAll(t, s)
		if text == "" || !errors.Is(s.Err(), tokenpace.ErrInvalidOutput) || s.Timing().Target != "big" {
			t.Errorf("caller got %q, %v (Target %q); want big's rejected text and ErrInvalidOutput", text, s.Err(), s.Timing().Target)
		}
		if got := outcomes(s.Timing()); !slices.Equal(got, []tokenpace.Outcome{tokenpace.OutcomeInvalid, tokenpace.OutcomeInvalid}) {
			t.Errorf("outcomes %v, want both invalid", got)
		}
	})
}

package tokenpace_test

import (
	"context"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// A Router completion under each policy: what the caller reads, the
// attempts' outcomes, and the caller's TTFT.
func TestRouterCompletionStreaming(t *testing.T) {
	testRouterPolicies(t, tokenpace.APICompletions, func(r *tokenpace.Router) (routedStream, string) {
		s := r.NewCompletionStreaming(context.Background(), fim("big", "a", "b"))
		text, _ := readCompletion(s, time.Now())
		return s, text
	})
}

// A completion that stalls is continued on the next route with its text
// appended to the prompt, the same suffix, no continue prompt and
// max_tokens reduced by the tokens delivered; the caller reads one
// completion, under one id.
func TestRouterCompletionContinuation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var seen []simulate.ReplyInfo
		big := route("big")
		big.Options = []option.RequestOption{option.WithHeader(simulate.FaultHeader, "stall;for=5s;after=20")}
		r := router(t, tokenpace.Policy{Budget: tokenpace.Budget{Gap: 100 * msec}, Continue: true}, []simulate.Option{
			simulate.WithModel("big", &simulate.Fixed{TTFT: 100 * msec, ITL: 20 * msec}),
			simulate.WithModel("small", &simulate.Fixed{TTFT: 50 * msec, ITL: 10 * msec}),
			simulate.WithReply(func(ri simulate.ReplyInfo) (string, bool) {
				seen = append(seen, ri)
				if ri.Model == "big" {
					return words(1, 40), true
				}
				return words(21, 40), true
			}),
		}, big, route("small"))
		params := fim("big", "P:", "S")
		params.MaxTokens = openai.Int(30)
		s := r.NewCompletionStreaming(context.Background(), params)
		var ids []string
		var text string
		for s.Next() {
			ids = append(ids, s.Current().ID)
			if ch := s.Current().Choices; len(ch) > 0 {
				text += ch[0].Text
			}
		}
		s.Close()
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v, want nil", err)
		}
		if want := words(1, 30); text != want {
			t.Errorf("text = %q, want %q (max_tokens 30 over both routes)", text, want)
		}
		if len(seen) != 2 || seen[1].Prompt != "P:"+words(1, 20) || seen[1].Suffix != "S" {
			t.Fatalf("requests = %+v, want the continuation's prompt %q and suffix S", seen, "P:"+words(1, 20))
		}
		if ids = slices.Compact(ids); len(ids) != 1 {
			t.Errorf("event ids = %v, want one id", ids)
		}
		tm := s.Timing()
		if got, want := kinds(tm), []tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptContinuation}; !slices.Equal(got, want) {
			t.Errorf("kinds = %v, want %v", got, want)
		}
		if len(tm.Chunks) != 30 || tm.OutputTokens != 30 {
			t.Errorf("chunks, output tokens = %d, %d, want 30, 30", len(tm.Chunks), tm.OutputTokens)
		}
	})
}

// A completion whose prompt is not one string cannot be continued: the
// stall ends the call with its breach and the text so far, as without
// Continue.
func TestRouterCompletionNoContinuation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		big := route("big")
		big.Options = []option.RequestOption{option.WithHeader(simulate.FaultHeader, "stall;for=5s;after=3")}
		r := router(t, tokenpace.Policy{Budget: tokenpace.Budget{Gap: 100 * msec}, Continue: true}, []simulate.Option{
			simulate.WithModel("big", &simulate.Fixed{TTFT: 100 * msec, ITL: 20 * msec}), replyWords(10),
		}, big, route("small"))
		params := openai.CompletionNewParams{Model: "big",
			Prompt: openai.CompletionNewParamsPromptUnion{OfArrayOfStrings: []string{"a"}}}
		s := r.NewCompletionStreaming(context.Background(), params)
		if text, _ := readCompletion(s, time.Now()); text != words(1, 3) {
			t.Errorf("text = %q, want %q", text, words(1, 3))
		}
		checkBudgetError(t, s.Err(), tokenpace.BudgetError{Target: "big", Phase: tokenpace.PhaseGap, Limit: 100 * msec, Observed: 100 * msec})
		if got, want := kinds(s.Timing()), []tokenpace.AttemptKind{tokenpace.AttemptFirst}; !slices.Equal(got, want) {
			t.Errorf("kinds = %v, want %v", got, want)
		}
	})
}

// A route's breaker counts the failures of every API: two failed
// completions open it, and the next call, a response, skips the route at
// once.
func TestRouterBreakerAcrossAPIs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		big := route("big")
		big.Options = []option.RequestOption{withFault("503")}
		r := router(t, tokenpace.Policy{Breaker: tokenpace.BreakerSettings{Failures: 2, Timeout: time.Minute}}, []simulate.Option{
			simulate.WithModel("big", &simulate.Fixed{TTFT: 100 * msec, ITL: 10 * msec}),
			simulate.WithModel("small", &simulate.Fixed{TTFT: 50 * msec, ITL: 10 * msec}),
			replyByModel(2),
		}, big, route("small"))
		for i := range 2 {
			s := r.NewCompletionStreaming(context.Background(), fim("big", "a", "b"))
			if text, _ := readCompletion(s, time.Now()); text != "S1 S2" || s.Err() != nil {
				t.Fatalf("completion %d: text %q, Err() %v, want S1 S2 from the fallback", i, text, s.Err())
			}
			if got, want := outcomes(s.Timing()), []tokenpace.Outcome{tokenpace.OutcomeFailed, tokenpace.OutcomeWon}; !slices.Equal(got, want) {
				t.Fatalf("completion %d: outcomes = %v, want %v", i, got, want)
			}
		}
		s := r.NewResponseStreaming(context.Background(), respond("big", 10))
		if _, text, _ := readResponse(s, time.Now()); text != "S1 S2" || s.Err() != nil {
			t.Fatalf("response: text %q, Err() %v, want S1 S2", text, s.Err())
		}
		if got, want := outcomes(s.Timing()), []tokenpace.Outcome{tokenpace.OutcomeSkipped, tokenpace.OutcomeWon}; !slices.Equal(got, want) {
			t.Errorf("response: outcomes = %v, want %v (the open breaker skips big)", got, want)
		}
	})
}

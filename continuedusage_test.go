package tokenpace_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace/simulate"
)

// A continued call's usage, as the caller reads it in the last chunk and
// in Accumulated(), counts the whole answer it received, as its Timing
// does: the continuation's server counts only its own 3 tokens, and the
// caller got 3 completion tokens of an answer of 8 (a total of the
// prompt's and 3).
func TestContinuedCallUsage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := stallingRouter(t, 5, simulate.Fixed{TTFT: 20 * msec, ITL: 5 * msec}, simulate.Fixed{TTFT: 20 * msec, ITL: 5 * msec}, replyWords(8))
		s := r.NewStreaming(context.Background(), chat("big", 8))
		var last openai.CompletionUsage
		for s.Next() {
			if c := s.Current(); c.JSON.Usage.Valid() {
				last = c.Usage
			}
		}
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v, want nil", err)
		}
		tm := s.Timing()
		acc := s.Accumulated().Usage
		for name, u := range map[string]openai.CompletionUsage{"the last chunk's": last, "Accumulated()": acc} {
			if u.CompletionTokens != int64(tm.OutputTokens) || u.TotalTokens != u.PromptTokens+u.CompletionTokens || u.PromptTokens != int64(tm.PromptTokens) {
				t.Errorf("%s usage = %d prompt, %d completion, %d total; want %d, %d (Timing's) and their sum",
					name, u.PromptTokens, u.CompletionTokens, u.TotalTokens, tm.PromptTokens, tm.OutputTokens)
			}
		}
	})
}

package tokenpace_test

import (
	"context"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
)

// TestTabbyAPIContextOverflowNotCounted: TabbyAPI checks a prompt's
// length before its stream, but a job ExLlamaV3's generator then cannot
// enqueue (its pages over the cache's) fails inside the 200 stream, and
// TabbyAPI sends it as the OpenAI error it answers 400 before a stream:
// type "invalid_request_error", code "context_length_exceeded"
// (theroyallab/tabbyAPI endpoints/OAI/utils/chat_completion.py,
// stream_generate_chat_completion; common/errors.py,
// context_length_error_content). The caller must get status 400 with the
// server's message, and a breaker must not count the prompt's fault.
// Its text completions send the same error the same way
// (endpoints/OAI/utils/completion.py, stream_generate_completion).
func TestTabbyAPIContextOverflowNotCounted(t *testing.T) {
	t.Run("chat", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			wantRefusalsNotCounted(t, "tabbyapi-context-overflow-in-stream", http.StatusBadRequest, chatErr(t))
		})
	})
	t.Run("completions", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			wantRefusalsNotCounted(t, "tabbyapi-completions-context-overflow-in-stream", http.StatusBadRequest,
				func(r *tokenpace.Router, model string) error {
					s := r.NewCompletionStreaming(context.Background(), openai.CompletionNewParams{
						Model: openai.CompletionNewParamsModel(model), Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("def add")}})
					for s.Next() {
					}
					s.Close()
					return s.Err()
				})
		})
	})
}

// TestTabbyAPITwoChoicesFinishApart: for n 2, TabbyAPI interleaves the
// choices' chunks; the choice that ends first has its own finish chunk
// and the last one's finish comes only on the usage chunk, with that
// choice's index (theroyallab/tabbyAPI
// endpoints/OAI/utils/chat_completion.py, stream_generate_chat_completion).
// Each choice must keep its own text and finish reason: the one cut at
// max_tokens "length", the other "stop".
func TestTabbyAPITwoChoicesFinishApart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var fx conformance
		fx.Reads = readFixture(t, "testdata/conformance/tabbyapi-n2-last-finish-on-usage-chunk.jsonl", &fx)
		url, hc := serve(t, byModel(map[string]http.Handler{fx.Request.Body.Model: replay(fx.recording)}))
		c := tokenpace.NewClient(openaiClient(url, hc))
		p := chat(fx.Request.Body.Model, 6)
		p.N = openai.Int(2)
		s := c.NewStreaming(context.Background(), p)
		readAll(t, s)
		acc := s.Accumulated()
		if s.Err() != nil || len(acc.Choices) != 2 {
			t.Fatalf("Err() = %v, %d choices; want nil and 2", s.Err(), len(acc.Choices))
		}
		want := [2]struct{ text, finish string }{{"Budgets keep tail latency in check", "length"}, {"A budget bounds waits.", "stop"}}
		for i, w := range want {
			if ch := acc.Choices[i]; ch.Message.Content != w.text || ch.FinishReason != w.finish {
				t.Errorf("choice %d: %q, %q; want %q, %q", i, ch.Message.Content, ch.FinishReason, w.text, w.finish)
			}
		}
		if u := acc.Usage; u.PromptTokens != 24 || u.CompletionTokens != 11 {
			t.Errorf("usage %d and %d tokens, want 24 and 11", u.PromptTokens, u.CompletionTokens)
		}
		if tm := s.Timing(); tm.FinishReason != "length" {
			t.Errorf("Timing().FinishReason = %q, want the first choice's %q", tm.FinishReason, "length")
		}
	})
}

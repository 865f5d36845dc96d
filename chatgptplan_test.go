package tokenpace_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
)

// TestChatGPTPlanLimitNotSentAgain: ChatGPT's Codex backend answers an
// account past its plan's 5-hour or weekly usage limit with 429 of type
// "usage_limit_reached" and the reset time, and one whose plan does not
// include Codex with 429 "usage_not_included" (openai/codex
// codex-rs/core/src/client.rs, ErrorResponse: both fatal, not retried);
// a bridge that relays the body keeps them, and ChatMock keeps only the
// words, "The usage limit has been reached"
// (testdata/conformance/chatmock-usage-limit-429.jsonl). Each lasts hours
// or until the plan changes, and openai-go sent each request twice more,
// after its back-offs, before the caller learnt why: now once. A 429 of
// a rate limit is still sent again. The words of the relayed
// usage_not_included and of the rate limit are assumed.
func TestChatGPTPlanLimitNotSentAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var chatmock conformance
		chatmock.Reads = readFixture(t, "testdata/conformance/chatmock-usage-limit-429.jsonl", &chatmock)
		answer := func(body string) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusTooManyRequests)
				_, _ = w.Write([]byte(body))
			}
		}
		handlers := map[string]http.Handler{
			"chatmock":    replay(chatmock.recording),
			"relayed":     answer(`{"error":{"type":"usage_limit_reached","message":"The usage limit has been reached","plan_type":"plus","resets_at":1796659200,"resets_in_seconds":16020}}`),
			"notincluded": answer(`{"error":{"type":"usage_not_included","message":"To use Codex with your ChatGPT plan, upgrade to Plus: https://openai.com/chatgpt/pricing."}}`),
			"limited":     answer(`{"error":{"type":"rate_limit_exceeded","message":"Rate limit reached. Please try again in 2s."}}`),
		}
		var asked sync.Map
		for model, h := range handlers {
			n := new(atomic.Int32)
			asked.Store(model, n)
			handlers[model] = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { n.Add(1); h.ServeHTTP(w, r) })
		}
		url, hc := serve(t, byModel(handlers))
		c := tokenpace.NewClient(openaiClient(url, hc))
		for model, want := range map[string]struct {
			message string
			sent    int32
		}{
			"chatmock":    {chatmock.Expect.ErrorMessage, 1},
			"relayed":     {"The usage limit has been reached", 1},
			"notincluded": {"To use Codex with your ChatGPT plan, upgrade to Plus: https://openai.com/chatgpt/pricing.", 1},
			"limited":     {"Rate limit reached. Please try again in 2s.", 3},
		} {
			s := c.NewStreaming(context.Background(), chat(model, 16), option.WithMaxRetries(2))
			for s.Next() {
			}
			_ = s.Close()
			var ae *openai.Error
			if !errors.As(s.Err(), &ae) || ae.StatusCode != http.StatusTooManyRequests || ae.Message != want.message {
				t.Errorf("%s: err %v; want the server's 429 with its message %q", model, s.Err(), want.message)
			}
			n, _ := asked.Load(model)
			if got := n.(*atomic.Int32).Load(); got != want.sent {
				t.Errorf("%s: sent %d times, want %d", model, got, want.sent)
			}
		}
	})
}

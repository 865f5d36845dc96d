package tokenpace_test

import (
	"net/http"
	"testing"
	"testing/synctest"
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
		chatmock := fixture(t, "chatmock-usage-limit-429")
		wantSent(t, map[string]http.Handler{
			"chatmock":    replay(chatmock.recording),
			"relayed":     answer429(`{"error":{"type":"usage_limit_reached","message":"The usage limit has been reached","plan_type":"plus","resets_at":1796659200,"resets_in_seconds":16020}}`),
			"notincluded": answer429(`{"error":{"type":"usage_not_included","message":"To use Codex with your ChatGPT plan, upgrade to Plus: https://openai.com/chatgpt/pricing."}}`),
			"limited":     answer429(`{"error":{"type":"rate_limit_exceeded","message":"Rate limit reached. Please try again in 2s."}}`),
		}, map[string]sentWant{
			"chatmock":    {chatmock.Expect.ErrorMessage, 1},
			"relayed":     {"The usage limit has been reached", 1},
			"notincluded": {"To use Codex with your ChatGPT plan, upgrade to Plus: https://openai.com/chatgpt/pricing.", 1},
			"limited":     {"Rate limit reached. Please try again in 2s.", 3},
		})
	})
}

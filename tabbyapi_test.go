package tokenpace_test

import (
	"net/http"
	"testing"
	"testing/synctest"
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
func TestTabbyAPIContextOverflowNotCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wantRefusalsNotCounted(t, "tabbyapi-context-overflow-in-stream", http.StatusBadRequest, chatErr(t))
	})
}

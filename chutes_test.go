package tokenpace_test

import (
	"net/http"
	"testing"
	"testing/synctest"
)

// TestChutesPromptSpamNotCounted: Chutes refuses one user's prompt sent
// over 5,000 times within three hours with 429 and FastAPI's {"detail":
// "Stop spamming this prompt, please..."}, and serves that user's other
// prompts as before (chutesai/chutes-api api/invocation/router.py: the
// count is kept per user and per request hash). The refusal is the
// prompt's, not the route's health: a breaker of one failure opened on it,
// and every other prompt of the caller then skipped a route that would
// have answered. The caller still gets the 429 with Chutes' words, sent
// once; the breaker stays closed.
func TestChutesPromptSpamNotCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wantRefusalsNotCounted(t, "chutes-prompt-spam-429", http.StatusTooManyRequests, chatErr(t))
	})
}

package tokenpace_test

import (
	"net/http"
	"testing"
	"testing/synctest"
)

// TestAISIXGuardBlockNotCounted: AISIX's output guardrail, evaluated on
// the stream window by window, blocks a window with an error event of
// type content_filter in its 200 stream, after the windows that passed
// (crates/aisix-proxy/src/chat.rs); the same guardrail refuses a whole
// answer with 422. The caller must get 422 with the guardrail's message,
// and a breaker must not count the policy's refusal.
func TestAISIXGuardBlockNotCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wantRefusalsNotCounted(t, "aisix-chat-guardrail-window-blocked", http.StatusUnprocessableEntity, chatErr(t))
	})
}

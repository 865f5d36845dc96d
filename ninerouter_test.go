package tokenpace_test

import (
	"net/http"
	"testing"
	"testing/synctest"
)

// TestCommandCodeRefusalNotCounted: 9router's CommandCode provider, before
// decolua/9router#4130, relays CommandCode's error event as the answer's
// text; its refusal of the request's messages names statusCode 400 and
// isRetryable false (decolua/9router#3636). The caller must get status
// 400 with CommandCode's message, and a breaker must not count the
// request's fault.
func TestCommandCodeRefusalNotCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wantRefusalsNotCounted(t, "9router-commandcode-refusal-400-as-content", http.StatusBadRequest, chatErr(t))
	})
}

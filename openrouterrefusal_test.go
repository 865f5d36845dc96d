package tokenpace_test

import (
	"net/http"
	"testing"
	"testing/synctest"
)

// TestOpenRouterProviderRefusalNotCounted: OpenRouter passes on its
// provider's refusal of the request (OpenAI's 400 for a tool message
// without tool_call_id) inside its 200 event stream, as its error object
// of code 400. The caller got status 200 and a breaker of one failure
// opened on a route that was well; it now gets status 400, the status
// OpenRouter gives the same error before a stream, and the breaker stays
// closed.
func TestOpenRouterProviderRefusalNotCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wantRefusalsNotCounted(t, "openrouter-provider-refusal-error-event-400", http.StatusBadRequest, chatErr(t))
	})
}

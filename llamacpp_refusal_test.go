package tokenpace_test

import (
	"net/http"
	"testing"
)

// TestLlamaCppRefusalInStream replays llama-server refusing a request
// inside its 200 event stream: its error object, format_error_response's,
// names the request's fault by a 4xx code and a request error type, here
// a prompt over the context (code 400, exceed_context_size_error; builds
// before ggml-org/llama.cpp#16486, and relays that keep the object as it
// came). The caller gets the message with that status; a Router goes on
// to its next route and its breaker, the server being well, stays closed.
// The server's own failure, code 500 and type server_error, is still
// counted.
func TestLlamaCppRefusalInStream(t *testing.T) {
	for _, refused := range []string{
		"llamacpp-2025-10-context-refused-in-stream",
		"cortex-llamaserver-error-event-relayed",
		"llamacpp-error-field",
	} {
		t.Run(refused, func(t *testing.T) {
			wantRelayedRefusal(t, refused, "llamacpp-2024-error-data-then-field", http.StatusBadRequest)
		})
	}
}

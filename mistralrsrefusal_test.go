package tokenpace_test

import (
	"net/http"
	"testing"
)

// TestMistralRsRefusalInStream replays mistral.rs refusing a streamed
// chat request once its 200 has begun: its engine validates the request
// only after the stream is answered, and the stream sends every error,
// the request's fault or its own, as an error object typed
// "server_error" (mistralrs-server-core/src/streaming.rs,
// openai_error_event; mistralrs-core/src/engine/add_request.rs). The
// caller gets the message with status 400; a Router goes on to its next
// route and its breaker, the server being well, stays closed. Before,
// the status was 200 and the breaker opened after 5 such calls. The
// model's own failure, in the same shape, is still counted.
func TestMistralRsRefusalInStream(t *testing.T) {
	wantRelayedRefusal(t, "mistralrs-prompt-too-long-error-event", "mistralrs-model-error-mid-stream", http.StatusBadRequest)
}

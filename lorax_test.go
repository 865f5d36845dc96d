package tokenpace_test

import (
	"net/http"
	"testing"
)

// TestLoRAXRequestErrorInStream replays LoRAX refusing a request inside
// its stream: it validates the request only once its 200 event stream
// has begun, so a prompt over the context arrives as the stream's one
// event, TGI's error shape {"error": string, "error_type": "validation"},
// whose status, had the headers not been sent, is 422 (predibase/lorax
// router/src/server.rs, generate_stream_with_callback and
// From<InferError> for (StatusCode, Json<ErrorResponse>)). The caller
// gets the message with that status; a Router goes on to its next route
// and its breaker, the server being well, stays closed. The server's own
// failure in the same shape (error_type "generation") is still counted.
func TestLoRAXRequestErrorInStream(t *testing.T) {
	wantRelayedRefusal(t, "lorax-chat-validation-error-200", "lorax-chat-generation-error-after-output", http.StatusUnprocessableEntity)
}

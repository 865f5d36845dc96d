package tokenpace_test

import (
	"net/http"
	"testing"
)

// TestTGIValidationErrorInStream replays TGI refusing a streamed chat
// request once its 200 has begun: it validates the request only inside the
// stream, and sends the refusal, as every error, as an event of an error
// object with http_status_code 422 (router/src/server.rs,
// generate_stream_internal; router/src/infer/mod.rs, into_openai_event).
// The caller gets the message with that status; a Router goes on to its
// next route and its breaker, the server being well, stays closed. A
// generation that fails, sent with the same 422, is still counted.
func TestTGIValidationErrorInStream(t *testing.T) {
	wantRelayedRefusal(t, "tgi-validation-error-in-stream", "tgi-error-event-422", http.StatusUnprocessableEntity)
}

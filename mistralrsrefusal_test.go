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

// TestMistralRsOverCapacityInStream replays mistral.rs's paged-attention
// scheduler refusing a prompt larger than its whole KV cache, which no
// request to that server can fit, since #2389 up front
// (mistralrs-core/src/paged_attention/scheduler.rs,
// reject_front_of_waiting "over_total_capacity"), as the same
// "server_error" event: the request's, 400, as a prompt over the model's
// sequence length is; a Router goes on and its breaker stays closed.
// Before, the status was 200 and the breaker opened after 5 such calls.
func TestMistralRsOverCapacityInStream(t *testing.T) {
	wantRelayedRefusal(t, "mistralrs-kv-capacity-exceeded-error-event", "mistralrs-model-error-mid-stream", http.StatusBadRequest)
}

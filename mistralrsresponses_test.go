package tokenpace_test

import (
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/tokenpace/tokenpace"
)

// TestMistralRsResponsesErrorStatus replays mistral.rs's /v1/responses
// refusing a request and failing for want of memory, both once its 200
// stream has begun and both as an `error` event of type
// "validation_error": its Responses streamer gives every
// Response::ValidationError that type (mistralrs-server-core/src/
// responses.rs, OpenResponsesStreamer::poll_next), and since #2389 its
// paged-attention scheduler sends one when the KV cache has no blocks
// for a prompt that fits its capacity, even after preempting every
// running sequence (mistralrs-core/src/paged_attention/scheduler.rs,
// reject_front_of_waiting "cache_exhausted"). A prompt over the model's
// sequence length is the request's: 400, sent once, a Router goes on
// and its breaker stays closed. A cache out of blocks is the server's,
// as the same error on chat ("server_error") is: before, it came as the
// caller's 400 and the breaker stayed closed on a server out of memory.
func TestMistralRsResponsesErrorStatus(t *testing.T) {
	all := loadConformance(t)
	for _, tt := range []struct {
		fixture string
		status  int
		closed  bool
	}{
		{"mistralrs-responses-validation-error-event", http.StatusBadRequest, true},
		{"mistralrs-responses-kv-cache-exhausted", http.StatusOK, false},
	} {
		t.Run(tt.fixture, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				wantResponsesFailed(t, all[tt.fixture], tokenpace.Policy{}, tt.status, tt.closed)
			})
		})
	}
}

package tokenpace_test

import (
	"net/http"
	"testing"
)

// TestLemonadeRequestErrorInStream replays Lemonade Server relaying its
// upstream's refusal inside its own 200 event stream: llama-server's 400
// for a prompt over the context arrives as one error event whose object
// carries the upstream's status as status_code (lemond 11.6.0 and later,
// streaming_proxy.cpp, forward_sse_stream; lemonade-sdk/lemonade#3006).
// The caller gets the message with that status; a Router goes on to its
// next route and its breaker, the server being well, stays closed. The
// server's own failure in the same stream (its watchdog's reset of a
// backend that died, no status_code) is still counted.
func TestLemonadeRequestErrorInStream(t *testing.T) {
	wantRelayedRefusal(t, "lemonade-backend-error-status-code", "lemonade-watchdog-reset-midstream", http.StatusBadRequest)
}

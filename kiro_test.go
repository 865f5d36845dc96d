package tokenpace_test

import (
	"net/http"
	"testing"
	"testing/synctest"
)

// TestKiroContentLengthNotCounted: kiro2api answers an input over
// CodeWhisperer's limit with one Anthropic message_delta of stop_reason
// "max_tokens" in a 200 event stream (caidaoli/kiro2api
// server/error_mapper.go). The caller must get status 400, the input's
// fault, and a breaker must not count it.
func TestKiroContentLengthNotCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wantRefusalsNotCounted(t, "kiro2api-content-length-message-delta-only", http.StatusBadRequest, chatErr(t))
	})
}

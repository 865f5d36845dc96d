package tokenpace_test

import (
	"net/http"
	"testing"
	"testing/synctest"
)

// TestWindsurfAPIContentBlockedNotCounted: WindsurfAPI sends its 200 event
// stream before its DEVIN_CONNECT upstream answers, and the upstream's
// content-policy refusal of a prompt comes there as an error event of code
// "CONTENT_BLOCKED", the refusal it answers 400 before a stream
// (dwgx/WindsurfAPI src/handlers/chat.js, connectErrorToHttp). It counted
// as the server's failure: a breaker of one failure opened on a route that
// was well after one prompt it would not take. The caller now gets status
// 400 with the upstream's words, and the breaker stays closed.
func TestWindsurfAPIContentBlockedNotCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wantRefusalsNotCounted(t, "windsurfapi-connect-content-blocked-error-done", http.StatusBadRequest, chatErr(t))
	})
}

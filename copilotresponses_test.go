package tokenpace_test

import (
	"context"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/tokenpace/tokenpace"
)

// TestCopilotResponsesInvalidBodyNotCounted: GitHub Copilot's Responses
// stream, relayed as it comes, refuses a request after its 200 with
// response.failed of error null, then an error event of code
// invalid_request_body (caozhiyuan/copilot-api
// src/routes/responses/early-response-error.ts). The caller must get
// status 400 with Copilot's message, and a breaker must not count it.
func TestCopilotResponsesInvalidBodyNotCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wantRefusalsNotCounted(t, "copilotapi-responses-failed-null-then-invalid-body", http.StatusBadRequest, func(r *tokenpace.Router, model string) error {
			s := r.NewResponseStreaming(context.Background(), respond(model, 64))
			for s.Next() {
			}
			return s.Err()
		})
	})
}

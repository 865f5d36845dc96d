package tokenpace_test

import (
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/tokenpace/tokenpace"
)

// TestLMDeployResponsesInvalidPrompt replays LMDeploy's /v1/responses
// ending a stream it has begun in response.failed: a request its engine
// refuses (a prompt over the context, code "invalid_prompt", which
// OpenAI's Responses API also gives a prompt it refuses) and an answer the
// server aborted (code "server_error", status "cancelled"). The caller
// gets the message; the refusal comes with status 400, and a Router goes
// on to its next route (continues the abort there) with its breaker, the server being well, closed.
// Before, the refusal's status was 200 and the breaker opened after 5
// such calls. The abort is the server's and is still counted.
func TestLMDeployResponsesInvalidPrompt(t *testing.T) {
	all := loadConformance(t)
	for _, tt := range []struct {
		fixture string
		status  int
		closed  bool
	}{
		{"lmdeploy-responses-invalid-prompt-failed", http.StatusBadRequest, true},
		{"lmdeploy-responses-abort-cancelled-failed", http.StatusOK, false},
	} {
		t.Run(tt.fixture, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				wantResponsesFailed(t, all[tt.fixture], tokenpace.Policy{Continue: true}, tt.status, tt.closed)
			})
		})
	}
}

package tokenpace_test

import (
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/tokenpace/tokenpace"
)

// TestResponsesInvalidPromptStatus replays OpenRouter's Responses API
// beta refusing a prompt over the provider's context once its 200 event
// stream has begun: response.failed with the error code "invalid_prompt",
// which the Responses API gives a request's own fault and OpenRouter its
// 400s (openrouter.ai/docs/api/reference/responses/error-handling). The
// caller gets the message with status 400, sent once; a Router goes on
// to its next route and its breaker, the server being well, stays closed.
// Before, the status was 200 and the breaker opened after 5 such calls.
// The server's own failure in the same shape (code "server_error") keeps
// its 200, and the breaker counts it.
func TestResponsesInvalidPromptStatus(t *testing.T) {
	fx := loadConformance(t)["openrouter-responses-failed-invalid-prompt"]
	for _, tt := range []struct {
		code   string
		status int
		closed bool
	}{
		{"invalid_prompt", http.StatusBadRequest, true},
		{"invalid_image_url", http.StatusBadRequest, true},
		{"server_error", http.StatusOK, false},
	} {
		t.Run(tt.code, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				fx := fx
				fx.Reads = append(fx.Reads[:0:0], fx.Reads...)
				last := &fx.Reads[len(fx.Reads)-1]
				last.Data = strings.Replace(last.Data, `"code":"invalid_prompt"`, `"code":"`+tt.code+`"`, 1)
				wantResponsesFailed(t, fx, tokenpace.Policy{}, tt.status, tt.closed)
			})
		})
	}
}

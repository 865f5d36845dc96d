package tokenpace_test

import (
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/tokenpace/tokenpace"
)

// TestHFRouterResponsesRefusalStatus replays Hugging Face's router on
// /v1/responses (huggingface/responses.js), which begins its 200 event
// stream before it asks a provider, and reports whatever fails after that
// as response.failed with code "server_error" and the exception's
// message: a provider's refusal as openai-node words it, "<status>
// <message>", and a parameter the bridge does not implement as "Not
// implemented: …". The caller gets the message with the status the words
// name (400 for the provider's refusal, 501 for what is not
// implemented), sent once; a Router goes on to its next route and its
// breaker stays closed. Before, both were status 200 and the breaker
// opened after 5 such calls on a router that was well. The router's own
// failure in the same shape, a message that names no status, keeps its
// 200 and counts; so does a provider's 5xx relayed so, and a 429.
func TestHFRouterResponsesRefusalStatus(t *testing.T) {
	all := loadConformance(t)
	for _, tt := range []struct {
		name, fixture, message string
		status                 int
		closed                 bool
	}{
		{"provider's 400", "hf-router-responses-provider-400-failed", "", http.StatusBadRequest, true},
		{"not implemented", "hf-router-responses-summary-not-implemented-failed", "", http.StatusNotImplemented, true},
		{"provider's 404", "hf-router-responses-provider-400-failed", "404 Model not found", http.StatusNotFound, true},
		{"provider's 503", "hf-router-responses-provider-400-failed", "503 Service Unavailable", http.StatusOK, false},
		{"provider's 429", "hf-router-responses-provider-400-failed", "429 Too Many Requests", http.StatusTooManyRequests, false},
		{"the router's own", "hf-router-responses-provider-400-failed", "terminated", http.StatusOK, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				fx := all[tt.fixture]
				if tt.message != "" {
					fx.Reads = append(fx.Reads[:0:0], fx.Reads...)
					last := &fx.Reads[len(fx.Reads)-1]
					last.Data = strings.Replace(last.Data, `"message":"`+fx.Expect.ErrorMessage+`"`, `"message":"`+tt.message+`"`, 1)
					fx.Expect.ErrorMessage = tt.message
				}
				wantResponsesFailed(t, fx, tokenpace.Policy{}, tt.status, tt.closed)
			})
		})
	}
}

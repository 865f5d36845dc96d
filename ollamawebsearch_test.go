package tokenpace_test

import (
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/tokenpace/tokenpace"
)

// TestOllamaWebSearchRefusal replays Ollama's /v1/responses with the
// web_search tool refusing a request: its writer keeps the chat handler's
// status to itself and sends the refusal as a 200 event stream ending in
// response.failed, code "api_error" (ollama/ollama middleware/openai.go,
// writeWebSearchError), a model not pulled (404) or one that cannot call
// tools (400) alike. The caller gets the message with the status Ollama's
// words give, sent once; a Router goes on to its next route and its
// breaker, the server being well, stays closed. Before, the status was
// 200 and the breaker opened after 5 such calls. The server's own failure
// in the same shape (a model that does not fit in memory, 500) is still
// counted, and a cloud usage limit (code "rate_limit_exceeded") keeps
// its 200: it is the route's, and the breaker counts it.
func TestOllamaWebSearchRefusal(t *testing.T) {
	all := loadConformance(t)
	const oom = "model requires more system memory (21.4 GiB) than is available (15.2 GiB)"
	for _, tt := range []struct {
		fixture string
		message string // in place of the fixture's, if set
		status  int
		closed  bool
	}{
		{"ollama-responses-websearch-refusal-failed", "", http.StatusNotFound, true},
		{"ollama-responses-websearch-no-tools-failed", "", http.StatusBadRequest, true},
		{"ollama-responses-websearch-refusal-failed", oom, http.StatusOK, false},
		{"ollama-responses-websearch-usage-limit-failed", "", http.StatusOK, false},
	} {
		t.Run(tt.fixture+"/"+tt.message, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				fx := all[tt.fixture]
				if tt.message != "" {
					fx.Reads = append(fx.Reads[:0:0], fx.Reads...)
					last := &fx.Reads[len(fx.Reads)-1]
					last.Data = strings.Replace(last.Data, fx.Expect.ErrorMessage, tt.message, 1)
					fx.Expect.ErrorMessage = tt.message
				}
				wantResponsesFailed(t, fx, tokenpace.Policy{}, tt.status, tt.closed)
			})
		})
	}
}

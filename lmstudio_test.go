package tokenpace_test

import (
	"net/http"
	"testing"
	"testing/synctest"
)

// TestLMStudioUnexpectedEndpointNotCounted: LM Studio's server answers a
// path it does not serve with status 200 and
// {"error":"Unexpected endpoint or method. (POST /completions)"}, not 404
// ("Returning 200 anyway", its log says; lmstudio-ai/lmstudio-bug-tracker
// #618, #2085): an editor's completions client whose base URL lacks /v1,
// or that asks a path of another server's (/v1/completion, /infill,
// /v1/fim/completions), meets it on its first request. The caller must
// get status 404 with the server's words, and a breaker must not count a
// route's wrong path as the server's failure, as it does not count a 404.
func TestLMStudioUnexpectedEndpointNotCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wantRefusalsNotCounted(t, "lmstudio-unexpected-endpoint-200", http.StatusNotFound, completionErr(t))
	})
}

// TestLMStudioTemplateRefusalNotCounted: LM Studio passes on llama-server's
// 500 for a chat template's refusal of the request's messages (its
// raise_exception) inside a 200 event stream, as an event named error
// with "Engine protocol predict request returned 500: Jinja Exception: …"
// (webai-at-home/webai-at-home#215, LM Studio 0.4.20). The same messages
// are refused the same way every time: the caller must get status 400
// with the server's words, as from llama-server and Ollama (see
// wire.ChatTemplateRefusal), and a breaker must not count it. Before, it
// was status 200 and a breaker of one failure opened on a server that is
// well.
func TestLMStudioTemplateRefusalNotCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wantRefusalsNotCounted(t, "lmstudio-jinja-exception-error-event", http.StatusBadRequest, chatErr(t))
	})
}

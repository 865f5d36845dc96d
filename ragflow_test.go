package tokenpace_test

import (
	"net/http"
	"testing"
	"testing/synctest"
)

// TestRAGFlowRefusalNotCounted: RAGFlow's OpenAI-compatible chat refuses
// a request for what it carries (no messages, a last message not the
// user's, a chat the key does not own) with status 200 and its own status
// as the body, {"code":102,"message":…}, before any stream
// (testdata/conformance/ragflow-refusal-code-102-200.jsonl). It counted as
// the server's failure: a breaker of one failure opened on a server that
// was well after one malformed request. The caller now gets status 400
// with the server's message, and the breaker stays closed.
func TestRAGFlowRefusalNotCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wantRefusalsNotCounted(t, "ragflow-refusal-code-102-200", http.StatusBadRequest, chatErr(t))
	})
}

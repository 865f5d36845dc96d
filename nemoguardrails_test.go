package tokenpace_test

import (
	"net/http"
	"testing"
	"testing/synctest"
)

// TestNeMoGuardrailsBlockNotCounted: NeMo Guardrails' server ends an
// answer an output rail blocks with an error event of type
// guardrails_violation, code content_blocked, in its 200 stream
// (nemoguardrails/rails/llm/llmrails.py, nemoguardrails/server/api.py),
// and names no status. The caller must get the rail's message with the
// stream's status, and a breaker must not count a policy's block of one
// answer against a route that answered.
func TestNeMoGuardrailsBlockNotCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wantRefusalsNotCounted(t, "nemoguardrails-stream-first-output-rail-blocked", http.StatusOK, chatErr(t))
	})
}

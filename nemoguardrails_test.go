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

// TestNeMoGuardrailsRailFailureCounted: an output rail that failed to run
// in parallel mode ends NeMo Guardrails' stream with an error of type
// internal_error, code rail_execution_failure, which its server passes on
// as an ordinary event with the stream's id and model added
// (nemoguardrails/server/api.py, ChunkErrorMetadata). No policy ruled on
// the answer: the route's failure, which a breaker must count.
func TestNeMoGuardrailsRailFailureCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wantFailureCounted(t, "nemoguardrails-stream-parallel-rail-internal-error", http.StatusOK, chatErr(t))
	})
}

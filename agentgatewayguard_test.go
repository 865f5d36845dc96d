package tokenpace_test

import (
	"net/http"
	"testing"
	"testing/synctest"
)

// TestAgentgatewayGuardBlockNotCounted: agentgateway's response guard,
// evaluated on the stream, blocks an answer with one error event of code
// guardrail_intervention in its 200 stream
// (crates/agentgateway/src/llm/policy/streaming_guardrails.rs); the same
// guard rejects a whole answer with 403. The caller must get 403 with the
// guard's message, and a breaker must not count the policy's refusal.
func TestAgentgatewayGuardBlockNotCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wantRefusalsNotCounted(t, "agentgateway-streaming-guard-blocked-error-only", http.StatusForbidden, chatErr(t))
	})
}

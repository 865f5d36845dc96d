package tokenpace

import (
	"errors"
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestPolicyBlocked: an error event names a content policy's block by its
// type (apfel, DashScope, AISIX, NeMo Guardrails) or by its code under
// another type (Azure OpenAI's filter, agentgateway's guard); any other
// error event (NeMo's rail that failed to run among them), and a policy's
// words in an error that is no error event, are not such a block.
func TestPolicyBlocked(t *testing.T) {
	for _, tc := range []struct {
		kind       ErrorKind
		typ, code  string
		wantBlocks bool
	}{
		{KindErrorEvent, "content_policy_violation", "", true},
		{KindErrorEvent, "invalid_request_error", "content_policy_violation", true},
		{KindErrorEvent, "data_inspection_failed", "data_inspection_failed", true},
		{KindErrorEvent, "guardrail_blocked", "guardrail_intervention", true},
		{KindErrorEvent, "api_error", "CONTENT_BLOCKED", true},
		{KindErrorEvent, "content_filter", "", true},
		{KindErrorEvent, "guardrails_violation", "content_blocked", true},
		{KindErrorEvent, "internal_error", "rail_execution_failure", false},
		{KindErrorEvent, "server_error", "", false},
		{KindErrorEvent, "invalid_request_error", "context_length_exceeded", false},
		{KindRequest, "invalid_request_error", "content_policy_violation", false},
	} {
		err := &StreamError{Kind: tc.kind, Err: &openai.Error{Type: tc.typ, Code: tc.code}}
		if got := policyBlocked(err); got != tc.wantBlocks {
			t.Errorf("policyBlocked(%v, type %q, code %q) = %v, want %v", tc.kind, tc.typ, tc.code, got, tc.wantBlocks)
		}
	}
	if policyBlocked(errors.New("content_policy_violation")) {
		t.Error("policyBlocked(a plain error) = true, want false")
	}
}

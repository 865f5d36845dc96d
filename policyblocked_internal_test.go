package tokenpace

import (
	"errors"
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestPolicyBlocked: an error event names a content policy's block by its
// type (apfel, DashScope, AISIX, NeMo Guardrails), by its code under
// another type (Azure OpenAI's filter, agentgateway's guard), or by the
// number of a platform's own status (Spark, MiniMax); any other
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
		// A platform's own status, read by the codec (no raw JSON): Spark's
		// output review, MiniMax's base_resp; Spark's engine failure is none.
		{KindErrorEvent, "error", "10014", true},
		{KindErrorEvent, "error", "10019", true},
		{KindErrorEvent, "error", "1027", true},
		{KindErrorEvent, "error", "10012", false},
	} {
		err := &StreamError{Kind: tc.kind, Err: &openai.Error{Type: tc.typ, Code: tc.code}}
		if got := policyBlocked(err); got != tc.wantBlocks {
			t.Errorf("policyBlocked(%v, type %q, code %q) = %v, want %v", tc.kind, tc.typ, tc.code, got, tc.wantBlocks)
		}
	}
	// In an error object, Spark's number (its nested shape) names the
	// block; the same digits as a string code, or an HTTP status, do not.
	for raw, want := range map[string]bool{
		`{"code":10014,"message":"m"}`:                                  true,
		`{"code":10012,"message":"m"}`:                                  false,
		`{"code":"10014","message":"m","type":"invalid_request_error"}`: false,
		`{"code":500,"message":"m","type":"server_error"}`:              false,
	} {
		var object openai.Error
		if err := object.UnmarshalJSON([]byte(raw)); err != nil {
			t.Fatal(err)
		}
		if got := policyBlocked(&StreamError{Kind: KindErrorEvent, Err: &object}); got != want {
			t.Errorf("policyBlocked(the error object %s) = %v, want %v", raw, got, want)
		}
	}
	if policyBlocked(errors.New("content_policy_violation")) {
		t.Error("policyBlocked(a plain error) = true, want false")
	}
}

// TestPolicyBlockedLiteLLMGuardrail: LiteLLM's proxy writes a guardrail's
// block mid-stream as an error object of type and param "None": with the
// code "400" its guardrail exceptions carry since #27617, or "500" with
// their words; since #39521, of the type its status stands for and param
// null, told by a guardrail's words. Its own failures, of a null type or
// with other words, a guardrail that broke the action protocol, and
// another server's 400, are not a block.
func TestPolicyBlockedLiteLLMGuardrail(t *testing.T) {
	for raw, want := range map[string]bool{
		`{"message":"Content violates policy","type":"None","param":"None","code":"400"}`:                                                                                        true,
		`{"message":"Blocked entity detected: US_SSN by Guardrail: presidio. This entity is not allowed to be used in this request.","type":"None","param":"None","code":"400"}`: true,
		`{"message":"Guardrail raised an exception, Guardrail: judge, Message: off topic","type":"None","param":"None","code":"500"}`:                                            true,
		`{"message":"Blocked by Prompt Security, Violations: Secrets","type":"None","param":"None","code":"500"}`:                                                                true,
		`{"message":"litellm.APIConnectionError: list index out of range","type":"None","param":"None","code":"500"}`:                                                            false,
		`{"message":"litellm.APIConnectionError: Connection lost mid-stream","type":null,"param":null,"code":"500"}`:                                                             false,
		`{"message":"Blocked by Prompt Security","type":null,"param":null,"code":"500"}`:                                                                                         false,
		`{"message":"Content violates policy","type":"BadRequestError","param":null,"code":400}`:                                                                                 false,
		`{"message":"Content violates policy","type":"None","param":"None","code":400}`:                                                                                          false,
		`{"message":"Content violates policy","type":"None","param":"None","code":"429"}`:                                                                                        false,
		`{"message":"Blocked by Prompt Security, Violations: harmful_content","type":"invalid_request_error","param":null,"code":"400"}`:                                         true,
		`{"message":"Content violates policy","type":"invalid_request_error","param":null,"code":"400"}`:                                                                         true,
		`{"message":"Blocked by Prompt Security, Violations: pii_leakage","type":"internal_server_error","param":null,"code":"500"}`:                                             true,
		`{"message":"litellm.BadRequestError: OpenAIException - context_length_exceeded","type":"invalid_request_error","param":null,"code":"400"}`:                              false,
		`{"message":"litellm.APIConnectionError: Connection lost mid-stream","type":"internal_server_error","param":null,"code":"500"}`:                                          false,
		`{"message":"Blocked by Prompt Security","type":"invalid_request_error","param":null,"code":400}`:                                                                        false,
		`{"message":"guardrail returned WAIT at end of stream (action protocol violation)","type":"None","param":"None","code":"400"}`:                                           false,
		`{"message":"guardrail attempted to retract already-emitted content (cursor=25, returned len=8) — action protocol violation","type":"None","param":"None","code":"400"}`: false,
	} {
		var object openai.Error
		if err := object.UnmarshalJSON([]byte(raw)); err != nil {
			t.Fatal(err)
		}
		if got := policyBlocked(&StreamError{Kind: KindErrorEvent, Err: &object}); got != want {
			t.Errorf("policyBlocked(the error object %s) = %v, want %v", raw, got, want)
		}
	}
}

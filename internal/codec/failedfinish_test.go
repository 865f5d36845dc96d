package codec

import "testing"

// TestFailedFinish checks which finish reasons say that the server
// stopped the answer by a failure: its own words for it (the reasons
// WindsurfAPI and opencodex give a Responses answer their bridge cut
// among them), and an error's
// type as Portkey's gateway sends it in place of Anthropic's mid-stream
// error event, and Cohere's "ERROR" and "TIMEOUT" in its capitals, as
// Portkey passes them on; OpenAI's four and the providers' words for
// them are no failure, nor are the capital words other providers send
// through the same relays for other ends, which a match in lower case
// must not take for Cohere's: Cohere's v1 "ERROR_TOXIC" (a filter),
// "ERROR_LIMIT" (the context's length) and "USER_CANCEL"
// (cohere-ai/cohere-python src/cohere/types/finish_reason.py), Gemini's
// "MALFORMED_FUNCTION_CALL" and "OTHER" (ai.google.dev/api/generate-content,
// FinishReason), Titan's "FINISHED" and "CONTENT_FILTERED"
// (Portkey-AI/gateway src/providers/bedrock/types.ts, TITAN_STOP_REASON),
// and watsonx's "time_limit", the end of the time its caller allowed in
// the request's time_limit (ibm.github.io/watsonx-ai-node-sdk,
// TextGenResult's stop_reason), which no continuation may run past.
func TestFailedFinish(t *testing.T) {
	tests := []struct {
		reason string
		want   bool
	}{
		{"abort", true},
		{"network_error", true},
		{"overloaded_error", true},
		{"api_error", true},
		{"rate_limit_error", true},
		{"json_schema_violation", true},
		{"upstream_incomplete", true},
		{"upstream_stall_timeout", true},
		{"adapter_eof", true},
		{"ERROR", true},
		{"TIMEOUT", true},
		{"timeout", true},
		{"Error", true},
		{"Overloaded_Error", true},
		{"COMPLETE", false},
		{"ERROR_TOXIC", false},
		{"ERROR_LIMIT", false},
		{"USER_CANCEL", false},
		{"MALFORMED_FUNCTION_CALL", false},
		{"OTHER", false},
		{"FINISHED", false},
		{"CONTENT_FILTERED", false},
		{"time_limit", false},
		{"TOOL_CALL", false},
		{"STOP", false},
		{"stop", false},
		{"length", false},
		{"tool_calls", false},
		{"content_filter", false},
		{"end_turn", false},
		{"tool_use", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := FailedFinish(tt.reason); got != tt.want {
			t.Errorf("FailedFinish(%q) = %v, want %v", tt.reason, got, tt.want)
		}
	}
}

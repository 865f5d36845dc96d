package codec

import "testing"

// TestFailedFinish checks which finish reasons say that the server
// stopped the answer by a failure: its own words for it, and an error's
// type as Portkey's gateway sends it in place of Anthropic's mid-stream
// error event, and Cohere's "ERROR" and "TIMEOUT" in its capitals, as
// Portkey passes them on; OpenAI's four and the providers' words for
// them are no failure.
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
		{"ERROR", true},
		{"TIMEOUT", true},
		{"timeout", true},
		{"COMPLETE", false},
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

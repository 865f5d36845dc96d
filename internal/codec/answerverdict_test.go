package codec

import (
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestAnswerRejected checks which error events after a finished answer
// say that the answer failed: vMLX's verdicts on it, not a relay's failure
// on the usage chunk after it, nor an error that is no event.
func TestAnswerRejected(t *testing.T) {
	tests := []struct {
		name, data string
		want       bool
	}{
		{"tool call required", `{"id": "c", "object": "chat.completion.chunk", "error": {"message": "m", "type": "invalid_request_error", "code": "tool_calls_required"}}`, true},
		{"strict schema", `{"id": "c", "object": "chat.completion.chunk", "error": {"message": "m", "type": "invalid_request_error", "code": "json_validation_failed"}}`, true},
		{"relay failure", `{"error":{"message":"litellm.APIConnectionError: list index out of range","type":"None","param":"None","code":"500"}}`, false},
		{"no code", `{"error":{"message":"m"}}`, false},
		{"Rapid-MLX's violation", `{"id":"c","object":"chat.completion.error","error":{"message":"m","type":"validation_error","code":"json_schema_violation"}}`, true},
		{"a gateway's quota after the answer", `{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}`, false},
		{"a numeric code", `{"error":{"message":"Provider returned error","code":502}}`, false},
	}
	for _, tt := range tests {
		_, err := Chat(openai.ChatCompletionNewParams{}, true).Decode([]byte(tt.data))
		if got := AnswerRejected(err); got != tt.want {
			t.Errorf("%s: AnswerRejected(%v) = %v, want %v", tt.name, err, got, tt.want)
		}
	}
	if AnswerRejected(&Error{Detail: "malformed event"}) {
		t.Error("AnswerRejected(a malformed event) = true, want false")
	}
}

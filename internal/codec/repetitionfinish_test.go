package codec

import (
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestRepetitionStoppedCall checks that a chat choice finishing
// "tool_calls" beside vLLM's stop_reason "repetition_detected" decodes
// as finished "repetition", and that any other stop reason, or another
// finish reason, is left as the server sent it.
func TestRepetitionStoppedCall(t *testing.T) {
	tests := []struct {
		name, finish, stop string
		want               string
	}{
		{"call stopped by the detector", `"tool_calls"`, `"repetition_detected"`, "repetition"},
		{"whole call", `"tool_calls"`, `null`, "tool_calls"},
		{"call ended by a stop token id", `"tool_calls"`, `151645`, "tool_calls"},
		{"text the detector stopped", `"repetition"`, `"repetition_detected"`, "repetition"},
		{"stop with a stop string", `"stop"`, `"repetition_detected"`, "stop"},
		{"not finished", `null`, `"repetition_detected"`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chunk := `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":` + tt.finish + `,"stop_reason":` + tt.stop + `}]}`
			ev, err := Chat(openai.ChatCompletionNewParams{}, true).Decode([]byte(chunk))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if got := ev.Chunk.Choices[0].FinishReason; got != tt.want {
				t.Errorf("Decode(finish %s, stop_reason %s) finish = %q, want %q", tt.finish, tt.stop, got, tt.want)
			}
		})
	}
}

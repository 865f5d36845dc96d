package codec

import (
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestDetailedFinishCancelled checks that a chunk whose choice finishes
// "stop" while its top-level nvext.detailed_finish_reason is Dynamo's
// "cancelled" decodes with "cancelled" as the finish reason, on chat and
// on completions streams; that an engine's reason for a whole answer
// ("eos", "stop") leaves "stop" as it is; that a chunk still streaming
// is not read as finished; and that a choice's own native_finish_reason
// is weighed before the chunk's nvext.
func TestDetailedFinishCancelled(t *testing.T) {
	tests := []struct {
		name, finish, extra, nvext string
		want                       string
	}{
		{"cancelled behind stop", `"stop"`, ``, `{"detailed_finish_reason":"cancelled"}`, "cancelled"},
		{"an end-of-sequence token", `"stop"`, ``, `{"detailed_finish_reason":"eos"}`, "stop"},
		{"a stop string", `"stop"`, ``, `{"detailed_finish_reason":"stop","stop_reason":"END"}`, "stop"},
		{"other fields only", `"stop"`, ``, `{"worker_id":{"decode_worker_id":7}}`, "stop"},
		{"not finished yet", `null`, ``, `{"detailed_finish_reason":"cancelled"}`, ""},
		{"native reason first", `"stop"`, `,"native_finish_reason":"end_turn"`, `{"detailed_finish_reason":"cancelled"}`, "stop"},
		{"nvext not an object", `"stop"`, ``, `"cancelled"`, "stop"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chat := `{"id":"chatcmpl-1","choices":[{"index":0,"delta":{},"finish_reason":` + tt.finish + tt.extra + `,"logprobs":null}],"created":1,"model":"m","object":"chat.completion.chunk","usage":null,"nvext":` + tt.nvext + `}`
			ev, err := Chat(openai.ChatCompletionNewParams{}, true).Decode([]byte(chat))
			if err != nil {
				t.Fatalf("chat Decode: %v", err)
			}
			if got := ev.Chunk.Choices[0].FinishReason; got != tt.want {
				t.Errorf("chat Decode(%s, nvext %s) finish = %q, want %q", tt.finish, tt.nvext, got, tt.want)
			}
			comp := `{"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"text":"","index":0,"logprobs":null,"finish_reason":` + tt.finish + tt.extra + `}],"usage":null,"nvext":` + tt.nvext + `}`
			if got := completionFinish(t, comp); got != tt.want {
				t.Errorf("completions Decode(%s, nvext %s) finish = %q, want %q", tt.finish, tt.nvext, got, tt.want)
			}
		})
	}
}

package codec

import (
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestNativeFinishFailure checks that a choice whose finish_reason is
// OpenRouter's word for an end but whose native_finish_reason names a
// failure decodes with the failure as its finish reason, on chat and on
// completions streams; that one naming one of Gemini's filters behind
// "stop" decodes as "content_filter"; and that any other native reason
// leaves the finish reason as it is.
func TestNativeFinishFailure(t *testing.T) {
	tests := []struct {
		name, finish, native string
		want                 string
	}{
		{"provider lost: stop, network_error", `"stop"`, `"network_error"`, "network_error"},
		{"provider error: stop, error", `"stop"`, `"error"`, "error"},
		{"length, error", `"length"`, `"error"`, "error"},
		{"whole answer: stop, end_turn", `"stop"`, `"end_turn"`, "stop"},
		{"Gemini's STOP", `"stop"`, `"STOP"`, "stop"},
		{"no native reason", `"stop"`, `null`, "stop"},
		{"no finish yet", `null`, `"network_error"`, ""},
		{"both error", `"error"`, `"error"`, "error"},
		{"Gemini's filter behind stop (CLIProxyAPI)", `"stop"`, `"safety"`, "content_filter"},
		{"Gemini's filter, upper case", `"stop"`, `"PROHIBITED_CONTENT"`, "content_filter"},
		{"recitation behind stop", `"stop"`, `"recitation"`, "content_filter"},
		{"a filter already named", `"content_filter"`, `"SAFETY"`, "content_filter"},
		{"a filter word behind length", `"length"`, `"safety"`, "length"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chat := `{"id":"gen-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":""},"finish_reason":` + tt.finish + `,"native_finish_reason":` + tt.native + `}]}`
			ev, err := Chat(openai.ChatCompletionNewParams{}, true).Decode([]byte(chat))
			if err != nil {
				t.Fatalf("chat Decode: %v", err)
			}
			if got := ev.Chunk.Choices[0].FinishReason; got != tt.want {
				t.Errorf("chat Decode(%s, native %s) finish = %q, want %q", tt.finish, tt.native, got, tt.want)
			}
			comp := `{"id":"gen-1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":"","finish_reason":` + tt.finish + `,"native_finish_reason":` + tt.native + `}]}`
			if got := completionFinish(t, comp); got != tt.want {
				t.Errorf("completions Decode(%s, native %s) finish = %q, want %q", tt.finish, tt.native, got, tt.want)
			}
		})
	}
}

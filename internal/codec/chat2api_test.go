package codec

import (
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestChat2APIFiltered checks that only chat2api's own refusal, with the
// role and finish "stop", reads as a filtered answer.
func TestChat2APIFiltered(t *testing.T) {
	chat := Chat(openai.ChatCompletionNewParams{}, true)
	const refusal = "I'm sorry, I cannot provide or engage in any content related to pornography, violence, or any unethical material. If you have any other questions or need assistance, please feel free to let me know. I'll do my best to provide support and assistance."
	for _, tt := range []struct{ name, delta, finish, want string }{
		{"the refusal", `{"role":"assistant","content":"` + refusal + `"}`, `"stop"`, "content_filter"},
		{"without the role", `{"content":"` + refusal + `"}`, `"stop"`, "stop"},
		{"other words", `{"role":"assistant","content":"I'm sorry."}`, `"stop"`, "stop"},
		{"cut by length", `{"role":"assistant","content":"` + refusal + `"}`, `"length"`, "length"},
		{"no finish", `{"role":"assistant","content":"` + refusal + `"}`, `null`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ev, err := chat.Decode([]byte(`{"id":"chatcmpl-1","choices":[{"index":0,"delta":` + tt.delta + `,"logprobs":null,"finish_reason":` + tt.finish + `}]}`))
			if err != nil {
				t.Fatalf("Decode = %v", err)
			}
			if got := ev.Chunk.Choices[0].FinishReason; got != tt.want {
				t.Errorf("finish reason = %q, want %q", got, tt.want)
			}
		})
	}
}

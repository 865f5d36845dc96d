package codec

import (
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestDropEOSToken checks that a streamed completions choice TGI finished
// "eos_token" loses the end-of-sequence token's text, and only that: the
// bytes of a character before it stay, and a choice finished for another
// reason, or whose text ends in no token, keeps its text.
func TestDropEOSToken(t *testing.T) {
	req := Completion(openai.CompletionNewParams{}, true)
	const head = `{"object":"text_completion","id":"","created":1,"choices":[{"index":0,"text":`
	tests := []struct {
		name, text, finish, want string
		outputs                  int
	}{
		{"Llama 3's end of turn", `"<|eot_id|>"`, `"eos_token"`, "", 0},
		{"a character's last bytes before it", `"é</s>"`, `"eos_token"`, "é", 1},
		{"a stop sequence's finish", `"<|eot_id|>"`, `"stop_sequence"`, "<|eot_id|>", 1},
		{"no finish yet", `"<b>"`, `""`, "<b>", 1},
		{"text that only ends in >", `"a -> b"`, `"eos_token"`, "a -> b", 1},
		{"a tag with a space", `"<a href>"`, `"eos_token"`, "<a href>", 1},
	}
	for _, tt := range tests {
		ev, err := req.Decode([]byte(head + tt.text + `,"logprobs":null,"finish_reason":` + tt.finish + `}],"model":"m","system_fingerprint":"3.3.6-native"}`))
		if err != nil {
			t.Fatalf("%s: Decode = %v, want nil", tt.name, err)
		}
		if got := ev.Chunk.Choices[0].Delta.Content; got != tt.want {
			t.Errorf("%s: text %q, want %q", tt.name, got, tt.want)
		}
		if ev.Outputs != tt.outputs {
			t.Errorf("%s: Outputs = %d, want %d", tt.name, ev.Outputs, tt.outputs)
		}
	}
}

package codec

import (
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestKongClaudeAtDone: the chunks Kong's ai-proxy makes of
// Anthropic's events finish "stop" at [DONE] once they had output; a
// stream with a finish reason, without output, or with a chunk in another
// shape (a created member, another id, usage) does not.
func TestKongClaudeAtDone(t *testing.T) {
	const role = `{"choices":[{"delta":{"content":"","role":"assistant"},"index":0,"logprobs":null}],"id":"msg_01a","model":"claude","object":"chat.completion.chunk","system_fingerprint":null}`
	const text = `{"choices":[{"delta":{"content":"Hi"},"index":0,"finish_reason":null,"logprobs":null}],"id":"msg_01a","model":"claude","object":"chat.completion.chunk"}`
	for _, tt := range []struct {
		name   string
		chunks []string
		want   string // the finish AtDone gives, "" for none
	}{
		{"role and text", []string{role, text}, "stop"},
		{"the role alone", []string{role}, ""},
		{"finished", []string{role, text, `{"choices":[{"delta":{},"index":0,"finish_reason":"stop"}],"id":"msg_01a","model":"claude","object":"chat.completion.chunk"}`}, ""},
		{"a created member", []string{role, `{"choices":[{"delta":{"content":"Hi"},"index":0,"finish_reason":null}],"id":"msg_01a","created":1,"model":"claude","object":"chat.completion.chunk"}`}, ""},
		{"another id", []string{`{"choices":[{"delta":{"content":"Hi"},"index":0,"finish_reason":null}],"id":"chatcmpl-1","model":"claude","object":"chat.completion.chunk"}`}, ""},
		{"usage", []string{role, `{"choices":[{"delta":{"content":"Hi"},"index":0,"finish_reason":null}],"id":"msg_01a","model":"claude","object":"chat.completion.chunk","usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}`}, ""},
	} {
		s := DecoderFor(Chat(openai.ChatCompletionNewParams{}, true))
		for _, c := range tt.chunks {
			if _, err := s.Decode([]byte(c)); err != nil {
				t.Fatalf("%s: Decode(%s) = %v", tt.name, c, err)
			}
		}
		got := ""
		if ev, ok := s.(DoneFinisher).AtDone(); ok {
			got = string(ev.Chunk.Choices[0].FinishReason)
		}
		if got != tt.want {
			t.Errorf("%s: AtDone() finish = %q, want %q", tt.name, got, tt.want)
		}
	}
}

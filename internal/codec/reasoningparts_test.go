package codec

import (
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestReasoningParts: ChatMock's o3 reasoning, an object of text parts,
// is read as the reasoning text, and its chunk as output; an object with
// another member, or a part of another type, is left as it came (no
// reasoning read); a string reasoning is read as before.
func TestReasoningParts(t *testing.T) {
	for _, tt := range []struct {
		reasoning string
		want      string
		output    bool
	}{
		{`{"content": [{"type": "text", "text": "**Weighing** waits"}]}`, "**Weighing** waits", true},
		{`{"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}`, "ab", true},
		{`{"content": [{"type": "text", "text": "a"}], "stage": "plan"}`, "", false},
		{`{"content": [{"type": "image", "url": "x"}]}`, "", false},
		{`"plain"`, "plain", true},
	} {
		s := DecoderFor(Chat(openai.ChatCompletionNewParams{}, true))
		ev, err := s.Decode([]byte(`{"id":"c","object":"chat.completion.chunk","created":1,"model":"gpt-5","choices":[{"index":0,"delta":{"reasoning":` + tt.reasoning + `},"finish_reason":null}]}`))
		if err != nil {
			t.Fatalf("%s: %v", tt.reasoning, err)
		}
		if got := ReasoningPiece(&ev.Chunk.Choices[0].Delta); got != tt.want || ev.Reasoning != tt.output {
			t.Errorf("reasoning %s: read %q (output %v), want %q (%v)", tt.reasoning, got, ev.Reasoning, tt.want, tt.output)
		}
	}
}

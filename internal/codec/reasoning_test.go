package codec

import (
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestReasoningPieceBesideEmpty: of a delta holding both reasoning fields,
// the piece is the one with text, and Reasoning keeps it under that
// field's name, the one to give it back in: a null or "" reasoning_content
// beside reasoning (OVHcloud during its move to reasoning) holds none.
func TestReasoningPieceBesideEmpty(t *testing.T) {
	for _, tt := range []struct {
		delta, want, field string
	}{
		{`"reasoning_content":null,"reasoning":"Plan."`, "Plan.", "reasoning"},
		{`"reasoning_content":"","reasoning":"Plan."`, "Plan.", "reasoning"},
		{`"reasoning":"Plan.","reasoning_content":"Plan."`, "Plan.", "reasoning_content"},
		{`"reasoning_content":"Plan.","reasoning":null`, "Plan.", "reasoning_content"},
		{`"reasoning_content":"Plan."`, "Plan.", "reasoning_content"},
		{`"reasoning":"Plan."`, "Plan.", "reasoning"},
		{`"reasoning_content":null,"content":"Hi"`, "", "reasoning_content"},
	} {
		s := DecoderFor(Chat(openai.ChatCompletionNewParams{}, true))
		ev, err := s.Decode([]byte(`{"id":"c","object":"chat.completion.chunk","created":1,"model":"gpt-oss-120b","choices":[{"index":0,"delta":{` + tt.delta + `},"finish_reason":null}]}`))
		if err != nil {
			t.Fatalf("%s: %v", tt.delta, err)
		}
		var r Reasoning
		r.Add(&ev)
		if got := ReasoningPiece(&ev.Chunk.Choices[0].Delta); got != tt.want || r.Text() != tt.want || r.Field() != tt.field {
			t.Errorf("delta {%s}: piece %q, kept %q in %s; want %q in %s", tt.delta, got, r.Text(), r.Field(), tt.want, tt.field)
		}
	}
}

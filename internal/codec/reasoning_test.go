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

// TestReasoningFirstCallArgs: the arguments of a stream's first call are
// its index's pieces that name no other id; a second call at the same
// index with an id of its own (Ollama's, SGLang's parallel calls) is not
// added to them.
func TestReasoningFirstCallArgs(t *testing.T) {
	for _, tt := range []struct {
		name   string
		deltas []string
		want   string
		known  bool
	}{
		{"none", []string{`"reasoning":"Plan."`}, "", false},
		{"pieces", []string{`"tool_calls":[{"index":0,"id":"functions.f:0","type":"function","function":{"name":"f","arguments":""}}]`,
			`"tool_calls":[{"index":0,"function":{"arguments":"{\"a\":"}}]`, `"tool_calls":[{"index":0,"function":{"arguments":"1}"}}]`}, `{"a":1}`, true},
		{"id repeated", []string{`"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"{"}}]`,
			`"tool_calls":[{"index":0,"id":"c1","function":{"arguments":"}"}}]`}, `{}`, true},
		{"second call at index 0", []string{`"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"{}"}}]`,
			`"tool_calls":[{"index":0,"id":"c2","function":{"name":"g","arguments":"{\"b\":2}"}}]`}, `{}`, true},
		{"second call at index 1", []string{`"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"{}"}},{"index":1,"id":"c2","function":{"name":"g","arguments":"[]"}}]`}, `{}`, true},
	} {
		var r Reasoning
		for _, d := range tt.deltas {
			ev, err := DecoderFor(Chat(openai.ChatCompletionNewParams{}, true)).Decode([]byte(`{"id":"c","object":"chat.completion.chunk","created":1,"model":"k","choices":[{"index":0,"delta":{` + d + `},"finish_reason":null}]}`))
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			r.Add(&ev)
		}
		if got, known := r.FirstCallArgs(); got != tt.want || known != tt.known {
			t.Errorf("%s: first call's arguments %q (known %v), want %q (%v)", tt.name, got, known, tt.want, tt.known)
		}
	}
}

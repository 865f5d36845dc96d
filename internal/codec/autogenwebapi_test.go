package codec

import (
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestAutogenWebAPIChunk: AutoGen.WebAPI's chunks are told by their
// member order, their object, no id and no finish reason; a chunk of
// OpenAI's, one with a finish reason, or one labelled as a chunk is not in
// the shape.
func TestAutogenWebAPIChunk(t *testing.T) {
	for _, tc := range []struct {
		name, json string
		in         bool
	}{
		{"AutoGen.WebAPI", `{"created":1717171717,"choices":[{"index":0,"delta":{"role":"assistant","content":"A"}}],"model":"test","object":"chat.completion"}`, true},
		{"an id", `{"id":"x","created":1717171717,"choices":[{"index":0,"delta":{"role":"assistant","content":"A"}}],"model":"test","object":"chat.completion"}`, false},
		{"a finish reason", `{"created":1717171717,"choices":[{"index":0,"delta":{"role":"assistant","content":"A"},"finish_reason":null}],"model":"test","object":"chat.completion"}`, false},
		{"a chunk's object", `{"created":1717171717,"choices":[{"index":0,"delta":{"role":"assistant","content":"A"}}],"model":"test","object":"chat.completion.chunk"}`, false},
		{"no role", `{"created":1717171717,"choices":[{"index":0,"delta":{"content":"A"}}],"model":"test","object":"chat.completion"}`, false},
		{"OpenAI", `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"A"},"finish_reason":null}]}`, false},
	} {
		var c openai.ChatCompletionChunk
		if err := c.UnmarshalJSON([]byte(tc.json)); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := autogenWebAPIChunk(&c); got != tc.in {
			t.Errorf("%s: autogenWebAPIChunk = %v, want %v", tc.name, got, tc.in)
		}
	}
}

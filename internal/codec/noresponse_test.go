package codec

import (
	"encoding/json"
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestDropNoResponse checks that vMLX's placeholder for an answer its
// model never began is no text, and that the same words are kept where
// they are not that placeholder: with more text, or in a chunk that
// finishes otherwise or not at all.
func TestDropNoResponse(t *testing.T) {
	tests := []struct {
		name, content, finish string
		dropped               bool
	}{
		{"placeholder", noResponseText, "stop", true},
		{"more text", noResponseText + " Sorry.", "stop", false},
		{"cut", noResponseText, "length", false},
		{"not finished", noResponseText, "", false},
		{"other text", "Hello.", "stop", false},
	}
	for _, tt := range tests {
		var c openai.ChatCompletionChunk
		ch := map[string]any{"index": 0, "delta": map[string]any{"content": tt.content}}
		if tt.finish != "" {
			ch["finish_reason"] = tt.finish
		}
		raw, _ := json.Marshal(map[string]any{"id": "c", "object": "chat.completion.chunk", "choices": []any{ch}})
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatal(err)
		}
		got := dropNoResponse(&c)
		want := tt.content
		if tt.dropped {
			want = ""
		}
		if got != tt.dropped || c.Choices[0].Delta.Content != want {
			t.Errorf("%s: dropNoResponse = %v, content %q; want %v, %q", tt.name, got, c.Choices[0].Delta.Content, tt.dropped, want)
		}
	}
}

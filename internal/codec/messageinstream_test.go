package codec

import (
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestMessageInStream: a chat stream's first event that is a whole chat
// completion (AutoGen.WebAPI's reply of an agent that cannot stream)
// gives its message's text; a chunk labelled "chat.completion" with a
// delta, one not finished, or a whole answer after the stream's first
// event (MiniMax's restatement) stays a chunk.
func TestMessageInStream(t *testing.T) {
	req := Chat(openai.ChatCompletionNewParams{Model: "test"}, true)
	for _, tc := range []struct {
		name, json, text, finish string
	}{
		{"whole reply", `{"created":1717171717,"choices":[{"finish_reason":"completed","index":0,"message":{"role":"assistant","content":"ABC"}}],"model":"test","object":"chat.completion"}`, "ABC", "completed"},
		{"a delta beside it", `{"created":1,"choices":[{"finish_reason":"stop","index":0,"delta":{"content":"A"},"message":{"role":"assistant","content":"ABC"}}],"model":"test","object":"chat.completion"}`, "A", "stop"},
		{"not finished", `{"created":1,"choices":[{"index":0,"message":{"role":"assistant","content":"ABC"}}],"model":"test","object":"chat.completion"}`, "", ""},
	} {
		ev, err := DecoderFor(req).Decode([]byte(tc.json))
		if err != nil {
			t.Fatalf("%s: Decode: %v", tc.name, err)
		}
		if ev.Chunk == nil || len(ev.Chunk.Choices) != 1 {
			t.Fatalf("%s: Decode gave %+v, want one choice", tc.name, ev.Chunk)
		}
		if ch := ev.Chunk.Choices[0]; ch.Delta.Content != tc.text || ch.FinishReason != tc.finish {
			t.Errorf("%s: text %q, finish %q; want %q, %q", tc.name, ch.Delta.Content, ch.FinishReason, tc.text, tc.finish)
		}
	}
	d := DecoderFor(req)
	if _, err := d.Decode([]byte(`{"id":"a","choices":[{"index":0,"delta":{"content":"ABC"}}],"created":1,"model":"test","object":"chat.completion.chunk"}`)); err != nil {
		t.Fatal(err)
	}
	ev, err := d.Decode([]byte(`{"id":"a","choices":[{"finish_reason":"stop","index":0,"message":{"role":"assistant","content":"ABC"}}],"created":1,"model":"test","object":"chat.completion"}`))
	if err != nil || ev.Chunk == nil || len(ev.Chunk.Choices) != 1 || ev.Chunk.Choices[0].Delta.Content != "" {
		t.Errorf("a whole answer after a delta: %+v, %v; want a chunk with no text", ev.Chunk, err)
	}
}

package codec

import (
	"encoding/json"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
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

// TestNoResponseResponses checks vMLX's Responses form of the
// placeholder: written whole in output_text.done (no delta before it) and
// in the final response, it gives the caller no text at either; other
// words whole in the done event still do, and so does the placeholder
// after text streamed (it is then the text's end, not the answer's
// absence).
func TestNoResponseResponses(t *testing.T) {
	done := func(text string) string {
		b, _ := json.Marshal(map[string]any{"type": "response.output_text.done", "item_id": "m", "output_index": 0, "content_index": 0, "text": text})
		return string(b)
	}
	completed := func(text string) string {
		b, _ := json.Marshal(map[string]any{"type": "response.completed", "response": map[string]any{"id": "r", "object": "response", "status": "completed", "model": "m",
			"output": []any{map[string]any{"type": "message", "id": "m", "role": "assistant", "status": "completed",
				"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}}}}})
		return string(b)
	}
	for _, tc := range []struct {
		name   string
		events []string
		want   string // the content the events gave, in order
	}{
		{"placeholder", []string{done(noResponseText), completed(noResponseText)}, ""},
		{"placeholder in the final event alone", []string{completed(noResponseText)}, ""},
		{"other words", []string{done("Hello."), completed("Hello.")}, "Hello."},
		{"after a delta", []string{`{"type":"response.output_text.delta","item_id":"m","output_index":0,"content_index":0,"delta":"["}`,
			done(noResponseText), completed(noResponseText)}, noResponseText},
	} {
		dec := DecoderFor(Response(responses.ResponseNewParams{}))
		var got string
		for _, e := range tc.events {
			ev, err := dec.Decode([]byte(e))
			if err != nil {
				t.Fatal(err)
			}
			got += ev.Chunk.Choices[0].Delta.Content
		}
		if got != tc.want {
			t.Errorf("%s: content %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestNoResponseAfterText checks that the placeholder's words, as the
// last chunk of an answer whose text came before them (a model quoting
// vMLX's message, sent by a relay that chunks by sentence), are the
// answer's and are kept: vMLX writes its placeholder only when its model
// generated no token. The placeholder alone, after an empty finished
// delta, is still no text.
func TestNoResponseAfterText(t *testing.T) {
	ev := func(content, finish string) string {
		ch := map[string]any{"index": 0, "delta": map[string]any{"content": content}, "finish_reason": nil}
		if finish != "" {
			ch["finish_reason"] = finish
		}
		b, _ := json.Marshal(map[string]any{"id": "c", "object": "chat.completion.chunk", "model": "m", "choices": []any{ch}})
		return string(b)
	}
	for _, tc := range []struct {
		name   string
		events []string
		want   string
	}{
		{"quoted after text", []string{ev("vMLX answers an empty generation with:\n", ""), ev(noResponseText, "stop")}, "vMLX answers an empty generation with:\n" + noResponseText},
		{"alone after an empty finish", []string{ev("", "stop"), ev(noResponseText, "stop")}, ""},
	} {
		dec := DecoderFor(Chat(openai.ChatCompletionNewParams{}, true))
		var got string
		outputs := 0
		for _, e := range tc.events {
			ev, err := dec.Decode([]byte(e))
			if err != nil {
				t.Fatal(err)
			}
			got += ev.Chunk.Choices[0].Delta.Content
			outputs += ev.Outputs
		}
		if got != tc.want || (outputs == 0) != (tc.want == "") {
			t.Errorf("%s: content %q (%d outputs), want %q", tc.name, got, outputs, tc.want)
		}
	}
}

// TestNoResponseCheckAllocs checks that the placeholder's check costs
// no allocation on the chunks it reads: a chunk finished "stop" with
// other words, the placeholder itself, and a chunk not finished (which
// returns at the finish reason).
func TestNoResponseCheckAllocs(t *testing.T) {
	for _, raw := range []string{
		`{"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"Hello."},"finish_reason":"stop"}]}`,
		`{"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"` + noResponseText + `"},"finish_reason":"stop"}]}`,
		`{"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"Hello"},"finish_reason":null}]}`,
	} {
		var c openai.ChatCompletionChunk
		if err := json.Unmarshal([]byte(raw), &c); err != nil {
			t.Fatal(err)
		}
		content := c.Choices[0].Delta.Content
		if n := testing.AllocsPerRun(1000, func() {
			c.Choices[0].Delta.Content = content
			dropNoResponse(&c)
			_ = noResponse(content)
		}); n != 0 {
			t.Errorf("%s: %v allocations, want 0", raw, n)
		}
	}
}

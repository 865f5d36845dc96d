package codec

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/openai/openai-go/v3"
)

func TestDllamaPrefill(t *testing.T) {
	const tail = `,"created":1797843600,"id":"cmpl-c0","model":"Distributed Model","object":"chat.completion"}`
	for _, tc := range []struct {
		name, chunk string
		want        bool
	}{
		{"the template's opening", `{"choices":[{"delta":{"content":"<think>\n","role":"assistant"},"finish_reason":"","index":0}]` + tail, true},
		{"a token", `{"choices":[{"delta":{"content":"Okay","role":"assistant"},"finish_reason":"","index":0}]` + tail, false},
		{"the finish", `{"choices":[{"finish_reason":"stop","index":0}]` + tail, false},
		{"another server's opening", `{"choices":[{"delta":{"content":"<think>\n","role":"assistant"},"finish_reason":null,"index":0}],"id":"chatcmpl-1","model":"deepseek-r1","object":"chat.completion.chunk"}`, false},
	} {
		var c openai.ChatCompletionChunk
		if err := json.Unmarshal([]byte(tc.chunk), &c); err != nil {
			t.Fatal(err)
		}
		if got := dllamaPrefill(&c); got != tc.want {
			t.Errorf("dllamaPrefill(%s) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestDllamaPrefillFirstChunkOnly: dllama-api writes the chat template's
// opening of the answer once, as the first chunk after its headers
// (src/dllama-api.cpp, ApiServer::complete); every chunk after it is a
// piece of the model's output, whatever its text, and counts as one.
func TestDllamaPrefillFirstChunkOnly(t *testing.T) {
	const chunk = `{"choices":[{"delta":{"content":%q,"role":"assistant"},"finish_reason":"","index":0}],"created":1797843600,"id":"cmpl-c0","model":"Distributed Model","object":"chat.completion"}`
	dec := DecoderFor(Chat(openai.ChatCompletionNewParams{}, true))
	for i, tc := range []struct {
		content string
		want    int
	}{{"<think>\n", 0}, {"Okay", 1}, {"<think>\n", 1}} {
		ev, err := dec.Decode(fmt.Appendf(nil, chunk, tc.content))
		if err != nil {
			t.Fatal(err)
		}
		if ev.Outputs != tc.want {
			t.Errorf("chunk %d (%q): Outputs = %d, want %d", i, tc.content, ev.Outputs, tc.want)
		}
	}
}

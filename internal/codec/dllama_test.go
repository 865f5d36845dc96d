package codec

import (
	"encoding/json"
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

package codec

import "testing"

// TestChatChunkLine: a chat chunk, with or without its object member, is
// one; a whole chat completion, an error body, a completions chunk and
// what is no JSON object are not.
func TestChatChunkLine(t *testing.T) {
	for _, tc := range []struct {
		line string
		want bool
	}{
		{`{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hi"}}]}`, true},
		{`{"id":"c","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}`, true},
		{`{"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"content":"Hi"}}]}`, false},
		{`{"id":"c","choices":[{"index":0,"message":{"content":"Hi"},"finish_reason":"stop"}]}`, false},
		{`{"id":"c","object":"text_completion","choices":[{"index":0,"text":"Hi"}]}`, false},
		{`{"detail":"Not Found"}`, false},
		{`[{"delta":{}}]`, false},
		{`<html>`, false},
		{`{"object":"chat.completion.chunk"`, false},
	} {
		if got := ChatChunkLine([]byte(tc.line)); got != tc.want {
			t.Errorf("ChatChunkLine(%s) = %v, want %v", tc.line, got, tc.want)
		}
	}
}

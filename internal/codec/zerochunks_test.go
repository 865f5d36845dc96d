package codec

import (
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestZeroChunkAtDone: a stream written from openai-go's zero value
// (Nexa SDK's) finishes "stop" at [DONE] once it had output, "tool_calls" after a tool call; one with an
// id, a service_tier null, a finish reason of its own, or no output does
// not.
func TestZeroChunkAtDone(t *testing.T) {
	const zero = `{"id":"","choices":[{"delta":{"content":"Hi","role":"assistant"},"finish_reason":"","index":0}],"created":0,"model":"","object":"chat.completion.chunk","service_tier":"","system_fingerprint":""}`
	const usage = `{"id":"","choices":[],"created":0,"model":"","object":"chat.completion.chunk","service_tier":"","system_fingerprint":"","usage":{"completion_tokens":1,"prompt_tokens":3,"total_tokens":4}}`
	for _, tt := range []struct {
		name   string
		chunks []string
		want   string // the finish AtDone gives, "" for none
	}{
		{"zero chunks", []string{zero, usage}, "stop"},
		{"usage alone", []string{usage}, ""},
		{"a tool call", []string{`{"id":"","choices":[{"delta":{"content":"","role":"","tool_calls":[{"index":0,"id":"call_1","function":{"arguments":"{}","name":"f"},"type":""}]},"finish_reason":"","index":0}],"created":0,"model":"","object":"chat.completion.chunk","service_tier":""}`, usage}, "tool_calls"},
		{"an id", []string{`{"id":"chatcmpl-1","choices":[{"delta":{"content":"Hi"},"finish_reason":"","index":0}],"created":0,"model":"","object":"chat.completion.chunk","service_tier":""}`}, ""},
		{"service_tier null", []string{`{"id":"","choices":[{"delta":{"content":"Hi"},"finish_reason":null,"index":0}],"created":0,"model":"","object":"chat.completion.chunk","service_tier":null}`}, ""},
		{"finished", []string{zero, `{"id":"","choices":[{"delta":{},"finish_reason":"length","index":0}],"created":0,"model":"","object":"chat.completion.chunk","service_tier":""}`}, ""},
		{"a zero chunk after another", []string{`{"id":"x","choices":[{"delta":{"content":"Hi"},"index":0}],"object":"chat.completion.chunk"}`, zero}, ""},
	} {
		s := DecoderFor(Chat(openai.ChatCompletionNewParams{}, true)).(DoneFinisher)
		for _, c := range tt.chunks {
			if _, err := s.(Decoder).Decode([]byte(c)); err != nil {
				t.Fatalf("%s: Decode(%s) = %v", tt.name, c, err)
			}
		}
		got := ""
		if ev, ok := s.AtDone(); ok {
			got = string(ev.Chunk.Choices[0].FinishReason)
		}
		if got != tt.want {
			t.Errorf("%s: AtDone() finish = %q, want %q", tt.name, got, tt.want)
		}
	}
}

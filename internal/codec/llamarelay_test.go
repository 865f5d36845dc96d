package codec

import (
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestLlamaRelayAtBareDone: llama-server's chunks, relayed by
// cortex.cpp without the last one, finish "stop" at a [DONE] with no line
// break once they had output, "tool_calls" after a tool call; a stream
// with a finish reason, without output, with a chunk in another shape, or
// with no build as its fingerprint does not; nor does AtDone, which a
// [DONE] with its line break calls, finish any of them.
func TestLlamaRelayAtBareDone(t *testing.T) {
	const role = `{"choices":[{"delta":{"role":"assistant"},"finish_reason":null,"index":0}],"created":1,"id":"chatcmpl-a1","model":"m","object":"chat.completion.chunk"}`
	const text = `{"choices":[{"delta":{"content":"Hi"},"finish_reason":null,"index":0}],"created":1,"id":"chatcmpl-a1","model":"m","object":"chat.completion.chunk","system_fingerprint":"b4932-1a2b3c4d"}`
	const call = `{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}}]},"finish_reason":null,"index":0}],"created":1,"id":"chatcmpl-a1","model":"m","object":"chat.completion.chunk","system_fingerprint":"b5478-9f8e7d6c"}`
	const finish = `{"choices":[{"delta":{},"finish_reason":"length","index":0}],"created":1,"id":"chatcmpl-a1","model":"m","object":"chat.completion.chunk","system_fingerprint":"b4932-1a2b3c4d","usage":{"completion_tokens":1,"prompt_tokens":3,"total_tokens":4}}`
	for _, tt := range []struct {
		name   string
		chunks []string
		want   string // the finish AtBareDone gives, "" for none
	}{
		{"role and text", []string{role, text}, "stop"},
		{"a tool call", []string{role, call}, "tool_calls"},
		{"the role alone", []string{role}, ""},
		{"finished", []string{role, text, finish}, ""},
		{"no build", []string{role, `{"choices":[{"delta":{"content":"Hi"},"finish_reason":null,"index":0}],"created":1,"id":"chatcmpl-a1","model":"m","object":"chat.completion.chunk"}`}, ""},
		{"another fingerprint", []string{role, `{"choices":[{"delta":{"content":"Hi"},"finish_reason":null,"index":0}],"created":1,"id":"chatcmpl-a1","model":"m","object":"chat.completion.chunk","system_fingerprint":"fp_ollama"}`}, ""},
		{"another id", []string{`{"choices":[{"delta":{"content":"Hi"},"finish_reason":null,"index":0}],"created":1,"id":"koboldcpp","model":"m","object":"chat.completion.chunk","system_fingerprint":"b4932-1a2b3c4d"}`}, ""},
	} {
		s := DecoderFor(Chat(openai.ChatCompletionNewParams{}, true))
		for _, c := range tt.chunks {
			if _, err := s.Decode([]byte(c)); err != nil {
				t.Fatalf("%s: Decode(%s) = %v", tt.name, c, err)
			}
		}
		got := ""
		if ev, ok := s.(BareDoneFinisher).AtBareDone(); ok {
			got = string(ev.Chunk.Choices[0].FinishReason)
		}
		if got != tt.want {
			t.Errorf("%s: AtBareDone() finish = %q, want %q", tt.name, got, tt.want)
		}
		if ev, ok := s.(DoneFinisher).AtDone(); ok {
			t.Errorf("%s: AtDone() finish = %q, want none", tt.name, ev.Chunk.Choices[0].FinishReason)
		}
	}
}

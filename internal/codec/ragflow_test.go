package codec

import (
	"errors"
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestRAGFlowError: RAGFlow's failure written as a delta's content, in
// its chunk's shape, is the server's error with the exception's words,
// whether its model is the literal "model" (v0.24.0) or the chat's own
// (its builds since April 2026); the same words in another server's
// delta (without function_call and tool_calls null, or without the
// reasoning_content member RAGFlow writes, whatever its model), after
// other text, or on a finish chunk are text.
func TestRAGFlowError(t *testing.T) {
	const (
		failed   = `{"id":"chatcmpl-5c2e","choices":[{"delta":{"content":"**ERROR**: Connection error.","role":"assistant","function_call":null,"tool_calls":null,"reasoning_content":null},"finish_reason":null,"index":0,"logprobs":null}],"created":1,"model":"model","object":"chat.completion.chunk","system_fingerprint":"","usage":null}`
		current  = `{"id":"chatcmpl-9f3b","choices":[{"delta":{"content":"**ERROR**: Connection error.","role":"assistant","function_call":null,"tool_calls":null,"reasoning_content":null},"finish_reason":null,"index":0,"logprobs":null}],"created":1,"model":"qwen-plus@Tongyi-Qianwen","object":"chat.completion.chunk","system_fingerprint":"","usage":null}`
		other    = `{"id":"chatcmpl-5c2e","choices":[{"delta":{"content":"**ERROR**: Connection error.","role":"assistant","reasoning_content":null},"finish_reason":null,"index":0}],"created":1,"model":"qwen-plus","object":"chat.completion.chunk"}`
		named    = `{"id":"chatcmpl-5c2e","choices":[{"delta":{"content":"**ERROR**: Connection error.","role":"assistant","reasoning_content":null},"finish_reason":null,"index":0}],"created":1,"model":"model","object":"chat.completion.chunk"}`
		inText   = `{"id":"chatcmpl-5c2e","choices":[{"delta":{"content":"The log says **ERROR**: disk full.","role":"assistant","function_call":null,"tool_calls":null,"reasoning_content":null},"finish_reason":null,"index":0}],"created":1,"model":"model","object":"chat.completion.chunk"}`
		noMember = `{"id":"chatcmpl-5c2e","choices":[{"delta":{"content":"**ERROR**: Connection error.","role":"assistant","function_call":null,"tool_calls":null},"finish_reason":null,"index":0}],"created":1,"model":"model","object":"chat.completion.chunk"}`
		finished = `{"id":"chatcmpl-5c2e","choices":[{"delta":{"content":"**ERROR**: Connection error.","role":"assistant","function_call":null,"tool_calls":null,"reasoning_content":null},"finish_reason":"stop","index":0}],"created":1,"model":"model","object":"chat.completion.chunk"}`
	)
	for _, tt := range []struct {
		name, data, want string // want: the error's message, "" for text
	}{
		{"RAGFlow's failure", failed, "Connection error."},
		{"RAGFlow's failure, the chat's model named", current, "Connection error."},
		{"another server", other, ""},
		{"another server's model named model", named, ""},
		{"the words inside the text", inText, ""},
		{"no reasoning_content member", noMember, ""},
		{"a finish chunk", finished, ""},
	} {
		s := DecoderFor(Chat(openai.ChatCompletionNewParams{}, true))
		_, err := s.Decode([]byte(tt.data))
		var got string
		var e *Error
		if errors.As(err, &e) && e.Server != nil {
			got = e.Server.Message
		} else if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got != tt.want {
			t.Errorf("%s: error %q, want %q", tt.name, got, tt.want)
		}
	}
}

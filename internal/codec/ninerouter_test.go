package codec

import (
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestCommandCodeError checks that only a chunk whose whole content is
// 9router's "[CommandCode error: …]" is read as an error event, and that
// text that merely mentions it stays text.
func TestCommandCodeError(t *testing.T) {
	chat := Chat(openai.ChatCompletionNewParams{}, true)
	const obj = `{\"type\":\"server_error\",\"message\":\"Service temporarily unavailable.\",\"statusCode\":503,\"isRetryable\":true}`
	tests := []decodedError{
		{"an error object", `{"id":"chatcmpl-1","choices":[{"index":0,"delta":{"content":"\n\n[CommandCode error: ` + obj + `]"},"finish_reason":null}]}`, "Service temporarily unavailable."},
		{"an error string", `{"id":"chatcmpl-1","choices":[{"index":0,"delta":{"content":"\n\n[CommandCode error: unknown]"},"finish_reason":null}]}`, "unknown"},
		{"no closing bracket", `{"id":"chatcmpl-1","choices":[{"index":0,"delta":{"content":"\n\n[CommandCode error: ` + obj + `"},"finish_reason":null}]}`, ""},
		{"text before it", `{"id":"chatcmpl-1","choices":[{"index":0,"delta":{"content":"See \n\n[CommandCode error: x]"},"finish_reason":null}]}`, ""},
		{"with a finish reason", `{"id":"chatcmpl-1","choices":[{"index":0,"delta":{"content":"\n\n[CommandCode error: x]"},"finish_reason":"stop"}]}`, ""},
		{"a newline of text", `{"id":"chatcmpl-1","choices":[{"index":0,"delta":{"content":"\n\n"},"finish_reason":null}]}`, ""},
	}
	wantErrorEvents(t, chat, tests)
}

// TestAbortedTerminal checks that only 9router's own finish chunk after
// its upstream failed (id "chatcmpl-aborted-…", model "", an empty delta)
// loses its finish reason.
func TestAbortedTerminal(t *testing.T) {
	chat := Chat(openai.ChatCompletionNewParams{}, true)
	for _, tt := range []struct{ name, data, want string }{
		{"9router's abort terminal", `{"id":"chatcmpl-aborted-1788700030490","object":"chat.completion.chunk","created":1788700030,"model":"","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`, ""},
		{"a model named", `{"id":"chatcmpl-aborted-1788700030490","object":"chat.completion.chunk","created":1788700030,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`, "stop"},
		{"another id", `{"id":"chatcmpl-1788700030490","object":"chat.completion.chunk","created":1788700030,"model":"","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`, "stop"},
		{"length", `{"id":"chatcmpl-aborted-1","object":"chat.completion.chunk","created":1,"model":"","choices":[{"index":0,"delta":{},"finish_reason":"length"}]}`, "length"},
		{"with usage", `{"id":"chatcmpl-aborted-1","object":"chat.completion.chunk","created":1,"model":"","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`, "stop"},
		{"with text", `{"id":"chatcmpl-aborted-1","object":"chat.completion.chunk","created":1,"model":"","choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop"}]}`, "stop"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ev, err := chat.Decode([]byte(tt.data))
			if err != nil {
				t.Fatalf("Decode = %v", err)
			}
			if got := ev.Chunk.Choices[0].FinishReason; got != tt.want {
				t.Errorf("finish reason = %q, want %q", got, tt.want)
			}
		})
	}
}

package codec

import (
	"errors"
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestErrorAsContent checks that only an error written as a whole answer
// (role, "Error: " content and finish "error" in one chunk) is read as an
// error event.
func TestErrorAsContent(t *testing.T) {
	chat := Chat(openai.ChatCompletionNewParams{}, true)
	tests := []decodedError{
		{"Semantic Router's cached error", `{"choices":[{"delta":{"content":"Error: Model is overloaded","role":"assistant"},"finish_reason":"error","index":0}],"id":"chatcmpl-cache-error-1","model":"cache","object":"chat.completion.chunk"}`, "Model is overloaded"},
		{"finish error mid-answer, no role", `{"choices":[{"delta":{"content":"Error: x"},"finish_reason":"error","index":0}]}`, ""},
		{"an answer that says Error:", `{"choices":[{"delta":{"content":"Error: x","role":"assistant"},"finish_reason":"stop","index":0}]}`, ""},
	}
	wantErrorEvents(t, chat, tests)
}

// decodedError is a chunk's data and the message of the server's error it
// must decode to, "" for none.
type decodedError struct{ name, data, msg string }

// wantErrorEvents decodes each case's data with d: an error event with
// the case's message, or no error when it has none.
func wantErrorEvents(t *testing.T, d Request, tests []decodedError) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := d.Decode([]byte(tt.data))
			var e *Error
			switch {
			case tt.msg == "" && err != nil:
				t.Errorf("Decode = %v, want no error", err)
			case tt.msg != "" && (!errors.As(err, &e) || e.Server == nil || e.Server.Message != tt.msg):
				t.Errorf("Decode = %v, want an error event %q", err, tt.msg)
			}
		})
	}
}

// TestBracketedError checks that only InfiniLM's failure written as a
// last piece ("[Error: …]" finished "error", "[Request timeout]" finished
// "timeout") is read as an error event, not text that looks like one.
func TestBracketedError(t *testing.T) {
	chat := Chat(openai.ChatCompletionNewParams{}, true)
	tests := []decodedError{
		{"InfiniLM's failure", `{"id":"cmpl-1","object":"chat.completion.chunk","created":1,"model":"jiuge","system_fingerprint":null,"choices":[{"index":0,"text":"[Error: boom]","delta":{"content":"[Error: boom]"},"logprobs":null,"finish_reason":"error"}]}`, "boom"},
		{"InfiniLM's timeout", `{"id":"cmpl-1","object":"chat.completion.chunk","created":1,"model":"jiuge","choices":[{"index":0,"text":"[Request timeout]","delta":{"content":"[Request timeout]"},"finish_reason":"timeout"}]}`, "Request timeout"},
		{"not closed", `{"choices":[{"index":0,"delta":{"content":"[Error: boom"},"finish_reason":"error"}]}`, ""},
		{"an answer that says it", `{"choices":[{"index":0,"delta":{"content":"[Error: boom]"},"finish_reason":"stop"}]}`, ""},
		{"a piece before the end", `{"choices":[{"index":0,"delta":{"content":"[Error: boom]"},"finish_reason":null}]}`, ""},
		{"a timeout with more words", `{"choices":[{"index":0,"delta":{"content":"[Request timeout] x"},"finish_reason":"timeout"}]}`, ""},
	}
	wantErrorEvents(t, chat, tests)
}

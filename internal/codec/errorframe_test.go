package codec

import (
	"errors"
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestErrorTypeFrame: an event without choices of a string error_type and
// a string error_message is the server's error, its message read from the
// error object the message holds as JSON text, else the message itself;
// the same fields beside choices, or a type without a message, are not.
func TestErrorTypeFrame(t *testing.T) {
	for _, tt := range []struct {
		name, data, want string
	}{
		{"object as text", `{"error_type":"validation_error","error_message":"{\"error\":{\"message\":\"Too long\"}}"}`, "Too long"},
		{"plain text", `{"error_type":"internal_error","error_message":"engine died"}`, "engine died"},
		{"beside choices", `{"id":"c","choices":[{"index":0,"delta":{"content":"Hi"}}],"error_type":"x","error_message":"y"}`, ""},
		{"no message", `{"id":"c","choices":[],"error_type":"validation_error"}`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Chat(openai.ChatCompletionNewParams{Model: "m"}, true).Decode([]byte(tt.data))
			var e *Error
			var ae openai.Error
			if errors.As(err, &e) && e.Server != nil {
				_ = e.Server.Fill(&ae)
			}
			if ae.Message != tt.want {
				t.Errorf("Decode(%s): error %v, message %q; want %q", tt.data, err, ae.Message, tt.want)
			}
		})
	}
}

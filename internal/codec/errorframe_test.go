package codec

import (
	"errors"
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestErrorTypeFrame: an event without choices of a string error_type and
// a string error_message is the server's error, its message read from the
// error object the message holds as JSON text, else the message itself,
// of the type error_type names unless that object names its own; the same
// fields beside choices, or a type without a message, are not.
func TestErrorTypeFrame(t *testing.T) {
	for _, tt := range []struct {
		name, data, want, typ string
	}{
		{"object as text", `{"error_type":"validation_error","error_message":"{\"error\":{\"message\":\"Too long\"}}"}`, "Too long", "validation_error"},
		{"object of its own type", `{"error_type":"validation_error","error_message":"{\"error\":{\"message\":\"Too long\",\"type\":\"invalid_request_error\"}}"}`, "Too long", "invalid_request_error"},
		{"plain text", `{"error_type":"internal_error","error_message":"engine died"}`, "engine died", "internal_error"},
		{"beside choices", `{"id":"c","choices":[{"index":0,"delta":{"content":"Hi"}}],"error_type":"x","error_message":"y"}`, "", ""},
		{"no message", `{"id":"c","choices":[],"error_type":"validation_error"}`, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Chat(openai.ChatCompletionNewParams{Model: "m"}, true).Decode([]byte(tt.data))
			var e *Error
			var ae openai.Error
			if errors.As(err, &e) && e.Server != nil {
				_ = e.Server.Fill(&ae)
			}
			if ae.Message != tt.want || ae.Type != tt.typ {
				t.Errorf("Decode(%s): error %v, message %q of type %q; want %q of type %q", tt.data, err, ae.Message, ae.Type, tt.want, tt.typ)
			}
		})
	}
}

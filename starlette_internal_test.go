package tokenpace

import (
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace/internal/codec"
)

// TestStarletteStatus: only an error without type or code whose message
// begins with a 4xx status and ": " names a request error's status.
func TestStarletteStatus(t *testing.T) {
	for _, tt := range []struct {
		e    openai.Error
		want int
	}{
		{openai.Error{Message: "400: Invalid value: messages must not be empty"}, 400},
		{openai.Error{Message: "404: Model 'x' not found"}, 404},
		{openai.Error{Message: "500: Internal server error: An unexpected error occurred."}, 0},
		{openai.Error{Message: "400: Invalid value", Type: "invalid_request_error"}, 0},
		{openai.Error{Message: "400: Invalid value", Code: "400"}, 0},
		{openai.Error{Message: "4000 tokens is over the limit"}, 0},
		{openai.Error{Message: "40x: odd"}, 0},
		{openai.Error{Message: "400"}, 0},
	} {
		if got := starletteStatus(&tt.e); got != tt.want {
			t.Errorf("starletteStatus(%q, type %q, code %q) = %d, want %d", tt.e.Message, tt.e.Type, tt.e.Code, got, tt.want)
		}
	}
}

// TestEventStatus: a Responses error event, or a chat or completions
// stream's error object, whose code is a 4xx status written as a string
// names a request error's status; a code written as a number does not.
func TestEventStatus(t *testing.T) {
	for _, tt := range []struct {
		s    codec.ServerError
		want int
	}{
		{codec.ServerError{Code: "400", Message: "Error code: 400 - {…}"}, 400},
		{codec.ServerError{Code: "404", Message: "Model 'x' not found"}, 404},
		{codec.ServerError{Code: "server_error", Message: "Internal server error"}, 0},
		{codec.ServerError{Code: "500", Message: "boom"}, 0},
		{codec.ServerError{Code: "4000"}, 0},
		{codec.ServerError{Code: "4x0"}, 0},
		{codec.ServerError{Raw: `{"code":"400","message":"Prompt is too long","param":"","type":""}`}, 400}, // Modular MAX
		{codec.ServerError{Raw: `{"code":"500","message":"boom","param":"","type":""}`}, 0},
		{codec.ServerError{Raw: `{"code":400,"message":"bad","type":"BadRequestError"}`}, 0}, // vLLM's number
		{codec.ServerError{Raw: `{"code":"invalid_request_error","message":"bad"}`}, 0},
		{codec.ServerError{Raw: `{"message":"weights cleared","type":"internal_error","code":"400"}`}, 0}, // FastDeploy's own failure
	} {
		if got := eventStatus(&tt.s); got != tt.want {
			t.Errorf("eventStatus(code %q, raw %q) = %d, want %d", tt.s.Code, tt.s.Raw, got, tt.want)
		}
	}
}

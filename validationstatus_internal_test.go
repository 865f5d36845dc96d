package tokenpace

import (
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestValidationStatus: only TGI's error object, with http_status_code,
// whose message is a validation error's, is the request's 422.
func TestValidationStatus(t *testing.T) {
	for _, tt := range []struct {
		raw, message string
		want         int
	}{
		{`{"message":"Input validation error: temperature must be strictly positive","http_status_code":422}`, "Input validation error: temperature must be strictly positive", 422},
		{`{"message":"Request failed during generation: Server error: CUDA out of memory","http_status_code":422}`, "Request failed during generation: Server error: CUDA out of memory", 0},
		{`{"message":"Input validation error: x"}`, "Input validation error: x", 0},
		{`{"message":"Input validation error: x","http_status_code":"422"}`, "Input validation error: x", 0},
		{`{"message":"input validation error: x","http_status_code":422}`, "input validation error: x", 0},
		{``, "", 0},
	} {
		if got := validationStatus(tt.raw, &openai.Error{Message: tt.message}); got != tt.want {
			t.Errorf("validationStatus(%s) = %d, want %d", tt.raw, got, tt.want)
		}
	}
}

package tokenpace

import "testing"

// TestGpt2GigaStatus: gpt2giga's error event names the status GigaChat
// answered with only by the gigachat library's exception class beside its
// code "stream_error"; a class of a request's error or of a limit is that
// status, any other (the server's failure) none, and so is the class name
// under any other code.
func TestGpt2GigaStatus(t *testing.T) {
	for _, tt := range []struct {
		raw  string
		want int
	}{
		{`{"message": "Upstream service error", "type": "UnprocessableEntityError", "code": "stream_error"}`, 422},
		{`{"message": "Upstream service error", "type": "BadRequestError", "code": "stream_error"}`, 400},
		{`{"message": "Upstream service error", "type": "AuthenticationError", "code": "stream_error"}`, 401},
		{`{"message": "Upstream service error", "type": "ForbiddenError", "code": "stream_error"}`, 403},
		{`{"message": "Upstream service error", "type": "NotFoundError", "code": "stream_error"}`, 404},
		{`{"message": "Upstream service error", "type": "RequestEntityTooLargeError", "code": "stream_error"}`, 413},
		{`{"message": "Upstream service error", "type": "RateLimitError", "code": "stream_error"}`, 429},
		{`{"message": "Upstream service error", "type": "ServerError", "code": "stream_error"}`, 0},
		{`{"message": "Upstream service error", "type": "ResponseError", "code": "stream_error"}`, 0},
		{`{"message": "Stream interrupted", "type": "ValueError", "code": "internal_error"}`, 0},
		{`{"message": "m", "type": "BadRequestError", "code": 400}`, 0},
		{`{"message": "m", "type": "BadRequestError"}`, 0},
		{`"a message"`, 0},
		{``, 0},
	} {
		if got := gpt2GigaStatus(tt.raw); got != tt.want {
			t.Errorf("gpt2GigaStatus(%s) = %d, want %d", tt.raw, got, tt.want)
		}
	}
}

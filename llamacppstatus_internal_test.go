package tokenpace

import "testing"

// TestLlamaCppStatus: only a code that is the one llama.cpp writes beside
// a request error's type is the request's status.
func TestLlamaCppStatus(t *testing.T) {
	for _, tt := range []struct {
		raw  string
		want int
	}{
		{`{"code":400,"message":"m","type":"exceed_context_size_error","n_prompt_tokens":14429,"n_ctx":8192}`, 400},
		{`{"code":400,"message":"m","type":"invalid_request_error"}`, 400},
		{`{"code":401,"message":"m","type":"authentication_error"}`, 401},
		{`{"code":403,"message":"m","type":"permission_error"}`, 403},
		{`{"code":404,"message":"m","type":"not_found_error"}`, 404},
		{`{"code":500,"message":"m","type":"exceed_context_size_error"}`, 0}, // #15780 as first merged
		{`{"code":500,"message":"m","type":"server_error"}`, 0},
		{`{"code":503,"message":"m","type":"unavailable_error"}`, 0},
		{`{"code":501,"message":"m","type":"not_supported_error"}`, 0},
		{`{"code":400,"message":"m","type":"BadRequestError"}`, 0},
		{`{"code":"400","message":"m","type":"invalid_request_error"}`, 0},
		{`{"code":"api_error","message":"m","type":"invalid_request_error"}`, 0},
		{`{"message":"m","type":"invalid_request_error"}`, 0},
		{`{"code":400,"message":"m"}`, 0},
		{`"a message"`, 0},
		{``, 0},
	} {
		if got := llamaCppStatus(tt.raw); got != tt.want {
			t.Errorf("llamaCppStatus(%s) = %d, want %d", tt.raw, got, tt.want)
		}
	}
}

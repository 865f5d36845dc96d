package wire

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestScaleLLMServerError: a 400 of ScaleLLM's two-member error object is
// the server's failure when its code is one of the engine's own failures
// (unknown, deadline, resources exhausted, unavailable); its refusal of
// the request (INVALID_ARGUMENT, 3), another shape, another status are
// not, and the body stays readable.
func TestScaleLLMServerError(t *testing.T) {
	for _, tc := range []struct {
		status int
		body   string
		want   bool
	}{
		{400, `{"error":{"message":"No available resources to schedule request","code":5}}`, true},
		{400, `{"error":{"message":"deadline exceeded","code":4}}`, true},
		{400, `{"error":{"message":"unavailable","code":7}}`, true},
		{400, `{"error":{"message":"Prompt is too long","code":3}}`, false},
		{400, `{"error":{"message":"No available resources to schedule request","code":"5"}}`, false},
		{400, `{"error":{"message":"x","code":5.5}}`, false},
		{400, `{"error":{"message":"x","code":5,"type":"server_error"}}`, false},
		{400, `{"error":{"message":"x","code":400}}`, false},
		{500, `{"error":{"message":"No available resources to schedule request","code":5}}`, false},
		{400, `not json`, false},
	} {
		res := &http.Response{StatusCode: tc.status, Body: io.NopCloser(strings.NewReader(tc.body))}
		if got := ScaleLLMServerError(res); got != tc.want {
			t.Errorf("ScaleLLMServerError(%d %s) = %v, want %v", tc.status, tc.body, got, tc.want)
		}
		if b, _ := io.ReadAll(res.Body); tc.status == 400 && string(b) != tc.body {
			t.Errorf("%d %s: body after = %q, want it whole", tc.status, tc.body, b)
		}
	}
}

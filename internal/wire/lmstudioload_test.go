package wire

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestLMStudioLoadFailure: LM Studio's 400 for a model it could not load
// is the server's failure; its 400 for a model not loaded, a request it
// refuses, and the same words under another status are not, and the body
// stays readable.
func TestLMStudioLoadFailure(t *testing.T) {
	const loadFailed = `{
  "error": {
    "message": "Failed to load model \"qwen/qwen3-coder-30b\". Error: Operation canceled.",
    "type": "invalid_request_error",
    "param": "model",
    "code": null
  }
}`
	for _, tc := range []struct {
		status int
		body   string
		want   bool
	}{
		{400, loadFailed, true},
		{400, `{"error":{"message":"No models loaded. Please load a model in the developer page or use the 'lms load' command.","type":"invalid_request_error","param":"model","code":null}}`, false},
		{400, `{"error":{"message":"'messages' field is required","type":"invalid_request_error"}}`, false},
		{400, `{"error":{"message":"Model \"Failed to load model \\\"x\\\"\" not found"}}`, false},
		{500, loadFailed, false},
	} {
		res := &http.Response{StatusCode: tc.status, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(tc.body))}
		if cut := BoundErrorBody(res); cut != "" {
			t.Fatalf("BoundErrorBody(%s) = %q", tc.body, cut)
		}
		if got := LMStudioLoadFailure(res); got != tc.want {
			t.Errorf("LMStudioLoadFailure(%d %s) = %v, want %v", tc.status, tc.body, got, tc.want)
		}
		if b, _ := io.ReadAll(res.Body); len(b) == 0 {
			t.Errorf("%d %s: body after is empty, want it readable", tc.status, tc.body)
		}
	}
}

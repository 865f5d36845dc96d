package wire

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestLMStudioLoadFailure: LM Studio's 400 for a model it could not load
// when the load was cancelled is the server's failure; its 400 for a
// model it will not or cannot load (too big for the machine, a file its
// engine cannot read), for a model not loaded, a request it refuses, and
// the same words under another status are not, and the body stays
// readable.
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
		// the guardrail's refusal of a model too big for the machine, and
		// a model file its engine cannot load: sent again they fail the
		// same way, the request's to change (another model, other load
		// settings), as before
		{400, `{"error":{"message":"Failed to load model \"mistral-nemo-instruct-2407\". Error: Model loading was stopped due to insufficient system resources. Under the current settings, this model requires approximately 273.25 GB of memory, and continuing to load it would likely overload your system and cause it to freeze. If you think this is incorrect, you can adjust the model loading guardrails in settings.","type":"invalid_request_error","param":"model","code":null}}`, false},
		{400, `{"error":{"message":"Failed to load model \"gpt-oss-20b\". Error: Error loading model.","type":"invalid_request_error","param":"model","code":null}}`, false},
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

package wire

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestRTPLLMRequestError: a 500 of RTP-LLM's own shape, as BoundErrorBody
// makes it, is a request error when its code is of a request fault and
// its name begins with that code; its own failures (514, UNKNOWN_ERROR),
// a name of another code, another status are not, and the body, rewritten
// as an error object named by error_code_str, stays readable.
func TestRTPLLMRequestError(t *testing.T) {
	for _, tc := range []struct {
		status int
		body   string
		want   bool
	}{
		{500, `{"error_code":605,"error_code_str":"605_INVALID_PARAMS","message":"tool_choice='required' is not supported by CustomChatRenderer"}`, true},
		{500, `{"error_code":511,"error_code_str":"511_LONG_PROMPT_ERROR","message":"model max tokens is 8192"}`, true},
		{500, `{"error_code":514,"error_code_str":"514_UNKNOWN_ERROR","message":"ErrorMsg: boom"}`, false},
		{500, `{"error_code":605,"error_code_str":"514_UNKNOWN_ERROR","message":"x"}`, false},
		{500, `{"error_code":605,"message":"x"}`, false},
		{400, `{"error_code":605,"error_code_str":"605_INVALID_PARAMS","message":"x"}`, false},
	} {
		res := &http.Response{StatusCode: tc.status, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(tc.body))}
		if cut := BoundErrorBody(res); cut != "" {
			t.Fatalf("BoundErrorBody(%s) = %q", tc.body, cut)
		}
		if got := RTPLLMRequestError(res); got != tc.want {
			t.Errorf("RTPLLMRequestError(%d %s) = %v, want %v", tc.status, tc.body, got, tc.want)
		}
		if b, _ := io.ReadAll(res.Body); !strings.Contains(string(b), `"message"`) {
			t.Errorf("%d %s: body after = %q, want it readable", tc.status, tc.body, b)
		}
	}
}

package wire

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestKServeRequestError: a 500 of type "OpenAIError" with code "500"
// whose message is one of a request's is a request error; KServe's
// failure of its own, another server's 500 with the same words and any
// other status are not, and the body stays readable.
func TestKServeRequestError(t *testing.T) {
	for _, tc := range []struct {
		status int
		body   string
		want   bool
	}{
		{500, `{"error":{"code":"500","message":"This model's maximum context length is 8192 tokens. However, you requested 50014 tokens.","param":"","type":"OpenAIError"}}`, true},
		{500, `{"error":{"message":"'n' > 1 is not supported","type":"OpenAIError","param":"","code":"500"}}`, true},
		{500, `{"error":{"message":"As of transformers v4.44, default chat template is no longer allowed","type":"OpenAIError","param":"","code":"500"}}`, false},
		{500, `{"error":{"message":"This model's maximum context length is 8192 tokens.","type":"server_error","code":500}}`, false},
		{400, `{"error":{"code":"400","message":"This model's maximum context length is 8192 tokens.","param":"","type":"BadRequest"}}`, false},
		{500, `not json`, false},
	} {
		res := &http.Response{StatusCode: tc.status, Body: io.NopCloser(strings.NewReader(tc.body))}
		if got := KServeRequestError(res); got != tc.want {
			t.Errorf("KServeRequestError(%d %s) = %v, want %v", tc.status, tc.body, got, tc.want)
		}
		if b, _ := io.ReadAll(res.Body); tc.status == 500 && string(b) != tc.body {
			t.Errorf("%d %s: body after = %q, want it whole", tc.status, tc.body, b)
		}
	}
}

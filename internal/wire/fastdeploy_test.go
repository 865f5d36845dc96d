package wire

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestFastDeployRequestError: a 500 of FastDeploy's four-member error
// object, of its request error's type, is a request error when it names
// the field at fault or holds one of its input checks' messages (with or
// without the chat handler's prefix); its own failure under the same type,
// another server's 500 of that type without a param, and any other status
// are not, and the body stays readable.
func TestFastDeployRequestError(t *testing.T) {
	for _, tc := range []struct {
		status int
		body   string
		want   bool
	}{
		{500, `{"error":{"message":"request[chatcmpl-1] generator error: Input text is too long, input_ids_len (8190) + min_tokens(1) >= max_model_len(8192), Traceback (most recent call last):\n","type":"invalid_request_error","param":null,"code":null}}`, true},
		{500, `{"error":{"message":"Length of input token(9000) exceeds the limit max_model_len(8192).","type":"invalid_request_error","param":null,"code":"invalid_value"}}`, true},
		{500, `{"error":{"message":"Logprobs is disabled, please enable it in startup config.","type":"invalid_request_error","param":"logprobs","code":null}}`, true},
		{500, `{"error":{"message":"reasoning_max_tokens must be greater than 0","type":"invalid_request","param":"reasoning_max_tokens","code":"400"}}`, true},
		{500, `{"error":{"message":"request[chatcmpl-1] generator error: Resource temporarily unavailable, Traceback (most recent call last):\n","type":"invalid_request_error","param":null,"code":null}}`, false},
		{500, `{"error":{"message":"request[chatcmpl-1] Input text is too long, input_ids_len (1)","type":"invalid_request_error","param":null,"code":null}}`, false},
		{500, `{"error":{"message":"Internal server error","type":"invalid_request_error","param":null,"code":null}}`, false},
		{500, `{"error":{"message":"Input text is too long, input_ids_len (1)","type":"invalid_request_error","code":null}}`, false},
		{500, `{"error":{"message":"Logprobs is disabled","type":"invalid_request_error","param":"logprobs","code":null,"id":"x"}}`, false},
		{500, `{"error":{"message":"Logprobs is disabled","type":"internal_error","param":"logprobs","code":null}}`, false},
		{502, `{"error":{"message":"Logprobs is disabled","type":"invalid_request_error","param":"logprobs","code":null}}`, false},
		{500, `not json`, false},
	} {
		res := &http.Response{StatusCode: tc.status, Body: io.NopCloser(strings.NewReader(tc.body))}
		if got := FastDeployRequestError(res); got != tc.want {
			t.Errorf("FastDeployRequestError(%d %s) = %v, want %v", tc.status, tc.body, got, tc.want)
		}
		if b, _ := io.ReadAll(res.Body); tc.status == 500 && string(b) != tc.body {
			t.Errorf("%d %s: body after = %q, want it whole", tc.status, tc.body, b)
		}
	}
}

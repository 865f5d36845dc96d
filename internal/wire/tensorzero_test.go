package wire

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestTensorZeroRequestError: TensorZero's 502 is a request error when
// every provider error its message holds is a 400, and nothing else
// failed; a provider's other status, a failure of no status (the
// provider's own, or one unreachable), a timeout, a 429, another
// message and another status are not, and the body stays readable.
func TestTensorZeroRequestError(t *testing.T) {
	const all = `All variants failed with errors: qwen3-8b: All model providers failed to infer with errors: `
	refused := `Error 400 Bad Request from vllm client: {\"object\":\"error\",\"message\":\"max_tokens is too large\",\"code\":400}`
	for _, tc := range []struct {
		status int
		msg    string
		want   bool
	}{
		{502, all + `vllm: ` + refused, true},
		{502, all + `vllm: ` + refused + `, backup: Error 400 Bad Request from openai client: {\"error\":{\"message\":\"bad\"}}`, true},
		{502, all + `vllm: ` + refused + `, backup: Error from openai server: upstream 500`, false},
		{502, all + `vllm: ` + refused + `, backup: Error from openai client: error sending request`, false},
		{502, all + `vllm: ` + refused + `, backup: Error 401 Unauthorized from openai client: bad key`, false},
		{502, all + `vllm: ` + refused + `, backup: Error 500 Internal Server Error from openai client: x`, false},
		{502, all + `vllm: Model provider vllm timed out after 30s, backup: ` + refused, false},
		{502, all + `vllm: Error from vllm server: {\"code\":500}`, false},
		{429, all + `vllm: Error 429 Too Many Requests from vllm client: slow down`, false},
		{502, `Bad gateway: ` + refused, false},
		{500, all + `vllm: ` + refused, false},
	} {
		body := `{"error":{"message":"` + tc.msg + `"}}`
		res := &http.Response{StatusCode: tc.status, Body: io.NopCloser(strings.NewReader(body))}
		if got := TensorZeroRequestError(res); got != tc.want {
			t.Errorf("TensorZeroRequestError(%d %s) = %v, want %v", tc.status, tc.msg, got, tc.want)
		}
		if b, _ := io.ReadAll(res.Body); tc.status == 502 && string(b) != body {
			t.Errorf("%d %s: body after = %q, want it whole", tc.status, tc.msg, b)
		}
	}
}

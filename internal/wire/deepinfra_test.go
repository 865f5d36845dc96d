package wire

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestDeepInfraRequestError: DeepInfra's 500 whose whole message says the
// prompt is longer than the model's input is a request error; another
// message, the same words inside another, and another status are not,
// and the body stays readable.
func TestDeepInfraRequestError(t *testing.T) {
	const tooLong = "Requested input length 99009 exceeds maximum input length 8192"
	for _, tc := range []struct {
		status int
		msg    string
		want   bool
	}{
		{500, tooLong, true},
		{500, "Internal Server Error", false},
		{500, "upstream failed: " + tooLong, false},
		{503, tooLong, false},
	} {
		body := `{"error":{"message":"` + tc.msg + `"}}`
		res := &http.Response{StatusCode: tc.status, Body: io.NopCloser(strings.NewReader(body))}
		if got := DeepInfraRequestError(res); got != tc.want {
			t.Errorf("DeepInfraRequestError(%d %q) = %v, want %v", tc.status, tc.msg, got, tc.want)
		}
		if b, _ := io.ReadAll(res.Body); tc.status == 500 && string(b) != body {
			t.Errorf("DeepInfraRequestError(%d %q) left the body %q, want %q", tc.status, tc.msg, b, body)
		}
	}
}

package wire

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestRefusedField: a 400 or 422 whose body names a field the client
// added refuses it, whatever the server's wording; any other answer does
// not, and the body stays readable.
func TestRefusedField(t *testing.T) {
	for _, tc := range []struct {
		status int
		body   string
		want   bool
	}{
		{400, `{"error":{"message":"Unrecognized request argument supplied: stream_options","type":"invalid_request_error"}}`, true},
		{400, `{"error":{"message":"Unknown parameter: 'stream_options'.","param":"stream_options","code":"unknown_parameter"}}`, true},
		{422, `{"detail":[{"type":"extra_forbidden","loc":["body","stream_options"],"msg":"Extra inputs are not permitted"}]}`, true},
		{400, `{"error":{"message":"max_tokens is too large"}}`, false},
		{500, `{"error":{"message":"stream_options failed"}}`, false},
		{200, `data: {"stream_options":1}`, false},
	} {
		res := &http.Response{StatusCode: tc.status, Body: io.NopCloser(strings.NewReader(tc.body))}
		if got := RefusedField(res, []string{ReasoningContent, StreamOptions}) == StreamOptions; got != tc.want {
			t.Errorf("%d %s: refused %v, want %v", tc.status, tc.body, got, tc.want)
		}
		if b, _ := io.ReadAll(res.Body); string(b) != tc.body {
			t.Errorf("%d: body %q after the check, want it unchanged", tc.status, b)
		}
	}
}

// TestWithoutStreamOptions takes the member out and leaves the rest as it
// was.
func TestWithoutStreamOptions(t *testing.T) {
	in := `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"stream_options"}]}`
	out, ok := WithoutStreamOptions([]byte(in))
	if want := `{"model":"m","stream":true,"messages":[{"role":"user","content":"stream_options"}]}`; !ok || string(out) != want {
		t.Errorf("WithoutStreamOptions = %s, %v; want %s, true", out, ok, want)
	}
	if out, ok := WithoutStreamOptions(out); ok || string(out) != `{"model":"m","stream":true,"messages":[{"role":"user","content":"stream_options"}]}` {
		t.Errorf("a body without the member: %s, %v; want it unchanged, false", out, ok)
	}
}

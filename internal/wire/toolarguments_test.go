package wire

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestToolArgumentsRefused: llama.cpp's refusal of a tool call's
// arguments that are not JSON, 500 "server_error", is told by its words
// and the JSON parser's after them, whatever server sent it (nginx passes
// it on under its own Server header) and whatever type a gateway that
// wraps it gives its own error (LiteLLM's null, vxcontrol/pentagi#313);
// the words without the parser's, another status, or a gateway's own
// failure, are not.
func TestToolArgumentsRefused(t *testing.T) {
	const refused = `{"error":{"code":500,"message":"Failed to parse tool call arguments as JSON: [json.exception.parse_error.101] parse error at line 1, column 2: syntax error while parsing object key - unexpected end of input; expected string literal","type":"server_error"}}`
	for _, tt := range []struct {
		status int
		body   string
		want   bool
	}{
		{500, refused, true},
		{500, `{"error":{"code":500,"message":"Failed to parse tool call arguments as JSON: parse error at line 1, column 27: invalid string: missing closing quote","type":"server_error"}}`, true},
		{500, `{"error":{"code":500,"message":"Failed to parse tool call arguments as JSON: out of memory","type":"server_error"}}`, false},
		{500, `{"error":{"code":500,"message":"Failed to parse tool call arguments as JSON","type":"server_error"}}`, false},
		{500, `{"error":{"code":500,"message":"llama_decode failed","type":"server_error"}}`, false},
		{500, `{"error":{"message":"Failed to parse tool call arguments as JSON: [json.exception.parse_error.101] parse error at line 1","type":"api_error"}}`, true},
		{500, `{"error":{"message":"litellm.InternalServerError: InternalServerError: Custom_openaiException - Failed to parse tool call arguments as JSON: [json.exception.parse_error.101] parse error at line 1, column 131: syntax error while parsing value - unexpected end of input; expected '[', '{', or a literal. Received Model Group=qwen3.6-35b\nAvailable Model Group Fallbacks=None","type":null,"param":null,"code":"500"}}`, true},
		{500, `{"error":{"message":"litellm.InternalServerError: InternalServerError: Custom_openaiException - Connection error.. Received Model Group=qwen3.6-35b\nAvailable Model Group Fallbacks=None","type":null,"param":null,"code":"500"}}`, false},
		{502, refused, false},
		{400, refused, false},
	} {
		res := &http.Response{StatusCode: tt.status, Header: http.Header{"Server": {"nginx/1.27.4"}}, Body: io.NopCloser(strings.NewReader(tt.body))}
		if got := ToolArgumentsRefused(res); got != tt.want {
			t.Errorf("ToolArgumentsRefused(%d %s) = %v, want %v", tt.status, tt.body, got, tt.want)
		}
		if b, _ := io.ReadAll(res.Body); string(b) != tt.body {
			t.Errorf("body after ToolArgumentsRefused = %q, want it kept", b)
		}
	}
}

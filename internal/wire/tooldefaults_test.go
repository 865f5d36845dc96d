package wire

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestFillTools: a function tool without a description or parameters
// gets them; what it has, other tools and a request without tools stay
// as they are.
func TestFillTools(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"model":"m"}`, `{"model":"m"}`},
		{`{"tools":[{"type":"function","function":{"name":"a"}}]}`,
			`{"tools":[{"type":"function","function":{"name":"a","description":"","parameters":{"type":"object","properties":{}}}}]}`},
		{`{"tools":[{"type":"function","function":{"name":"a","description":"d","parameters":{"type":"object"}}},{"type":"custom","custom":{"name":"c"}}]}`,
			`{"tools":[{"type":"function","function":{"name":"a","description":"d","parameters":{"type":"object"}}},{"type":"custom","custom":{"name":"c"}}]}`},
		{`{"tools":[{"type":"custom","custom":{"name":"c"}},{"type":"function","function":{"name":"b","description":"d"}}]}`,
			`{"tools":[{"type":"custom","custom":{"name":"c"}},{"type":"function","function":{"name":"b","description":"d","parameters":{"type":"object","properties":{}}}}]}`},
	} {
		if got := string(FillTools([]byte(tt.in))); got != tt.want {
			t.Errorf("FillTools(%s)\n got %s\nwant %s", tt.in, got, tt.want)
		}
	}
}

// TestRefusedTools: llama.cpp's refusal of a tool without a description
// or parameters, and of a stream with tools, is told by its message,
// whatever the status; another error, or the same words in a 2xx, is not.
func TestRefusedTools(t *testing.T) {
	const desc = `{"error":{"code":500,"message":"Failed to parse tools: [json.exception.out_of_range.403] key 'description' not found; tools = []","type":"server_error"}}`
	const stream = `{"error":{"code":500,"message":"Cannot use tools with stream","type":"server_error"}}`
	const params = `{"code":500,"message":"Failed to parse tools: [json.exception.out_of_range.403] key 'parameters' not found; tools = []"}`
	for _, tt := range []struct {
		status int
		body   string
		want   bool
	}{
		{500, desc, true},
		{500, params, true},
		{400, desc, true}, // a relay that answers its upstream's 500 as 400
		{500, `{"error":{"code":500,"message":"Failed to parse tools: [json.exception.type_error.302] type must be string","type":"server_error"}}`, false},
		{200, desc, false},
		{500, stream, false},
	} {
		res := &http.Response{StatusCode: tt.status, Body: io.NopCloser(strings.NewReader(tt.body))}
		if got := RefusedTools(res) == BareTools; got != tt.want {
			t.Errorf("%d %s: %v, want %v", tt.status, tt.body, got, tt.want)
		}
		if b, _ := io.ReadAll(res.Body); string(b) != tt.body && tt.status >= 400 {
			t.Errorf("%d: the body read back %q, want it as it was", tt.status, b)
		}
	}
}

package wire

import (
	"net/http"
	"net/url"
	"testing"
)

func TestDroppedField(t *testing.T) {
	for _, tt := range []struct {
		body, want string
	}{
		{`{"model":"m","prompt":"def f(x):\n","suffix":"\n    return x\n"}`, "suffix"},
		{`{"model":"m","prompt":"p","suffix":""}`, ""},
		{`{"model":"m","prompt":"p","echo":true}`, "echo"},
		{`{"model":"m","prompt":"p","echo":false}`, ""},
		{`{"model":"m","prompt":"the word \"suffix\" in a prompt"}`, ""},
		{`{"model":"m","prompt":"p","suffix":`, ""}, // not JSON: the server answers for it
		{`{"model":"m","prompt":"p"}`, ""},
	} {
		if got := DroppedField([]byte(tt.body)); got != tt.want {
			t.Errorf("DroppedField(%s) = %q, want %q", tt.body, got, tt.want)
		}
	}
}

func TestIsCompletions(t *testing.T) {
	for path, want := range map[string]bool{
		"/v1/completions": true, "/completions/": true, "/v1/chat/completions": false, "/v1/responses": false, "/infill": false,
	} {
		if got := IsCompletions(&http.Request{URL: &url.URL{Path: path}}); got != want {
			t.Errorf("IsCompletions(%s) = %v, want %v", path, got, want)
		}
	}
}

func TestDropsField(t *testing.T) {
	for server, want := range map[string]bool{"llama.cpp": true, "llama.cpp/b6652": true, "uvicorn": false, "": false} {
		res := &http.Response{Header: http.Header{"Server": {server}}}
		if got := DropsField(res); got != want {
			t.Errorf("DropsField(Server: %q) = %v, want %v", server, got, want)
		}
	}
	if DropsField(nil) {
		t.Error("DropsField(nil) = true, want false")
	}
}

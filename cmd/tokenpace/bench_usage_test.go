package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// TestBenchSaysTokensAreChunks: against a server that reports no usage
// (KoboldCpp 1.76, recorded: 40 tokens in 10 chunks), bench's token
// counts are the chunks it counted, and it says so, on stderr and in the
// JSON's warnings; against one that reports usage it says nothing.
func TestBenchSaysTokensAreChunks(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	for _, tc := range []struct {
		fixture string
		warned  bool
	}{
		{"../../testdata/koboldcpp-176-chat-n2-stream.jsonl", true},
		{"../../testdata/conformance/llamacpp-timings.jsonl", false},
	} {
		head, body := loadStream(t, tc.fixture)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/models") {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"tiny","object":"model"}]}`))
				return
			}
			for k, v := range head.Headers {
				w.Header().Set(k, v)
			}
			_, _ = w.Write([]byte(body))
		}))
		code, stdout, stderr := bench(t, t.Context(), "--json", "--base-url", srv.URL+"/v1", "--model", "tiny",
			"--requests", "3", "--concurrency", "1", "--max-tokens", "40")
		srv.Close()
		if code != 0 {
			t.Fatalf("%s: exit %d, stderr %q", tc.fixture, code, stderr)
		}
		var out struct {
			Warnings []string `json:"warnings"`
		}
		if err := json.Unmarshal([]byte(stdout), &out); err != nil {
			t.Fatal(err)
		}
		const say = "reported no token usage for 3 of 3 completed requests"
		onStderr, inJSON := strings.Contains(stderr, say), strings.Contains(strings.Join(out.Warnings, "\n"), say)
		if onStderr != tc.warned || inJSON != tc.warned {
			t.Errorf("%s: said on stderr %v, in the JSON %v; want %v (stderr %q)", tc.fixture, onStderr, inJSON, tc.warned, stderr)
		}
	}
}

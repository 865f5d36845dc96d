package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A base URL at which a web page answers (a server's UI at /, its API
// under /v1; a proxy's landing page) is named as no OpenAI API, with what
// came back and what to check: bench said it "cannot reach" the server,
// in openai-go's words about "destination types", and calibrate added
// "name the model with --served-model", which would not mend it. A page
// sent as JSON is said alike.
func TestBenchAndCalibrateSayAPageIsNoAPI(t *testing.T) {
	for _, tc := range []struct {
		name, contentType, body, want string
	}{
		{"web page", "text/html; charset=utf-8", "<html><body>Welcome to nginx!</body></html>", "with a body of type text/html; charset=utf-8"},
		{"a page sent as JSON", "application/json", "<html><body>Sign in</body></html>", "with a body of type application/json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tc.contentType)
				_, _ = w.Write([]byte(tc.body))
			}))
			t.Cleanup(srv.Close)
			want := []string{srv.URL + " answered, but not as an OpenAI API", "GET /models came back 200 OK", tc.want, "check that the base URL is the API's"}
			for _, args := range [][]string{
				{"--base-url", srv.URL, "--requests", "2"},
				{"--base-url", srv.URL, "--model", "m", "--requests", "2"},
			} {
				code, stdout, stderr := bench(t, t.Context(), args...)
				if code != 1 || stdout != "" || strings.Count(stderr, "\n") != 1 || strings.Contains(stderr, "cannot reach") || strings.Contains(stderr, "destination type") {
					t.Errorf("bench %q = exit %d, stdout %q, stderr %q; want 1 and one line saying no OpenAI API answered", args, code, stdout, stderr)
				}
				for _, w := range want {
					if !strings.Contains(stderr, w) {
						t.Errorf("bench %q stderr = %q, want %q", args, stderr, w)
					}
				}
			}
			code, _, stderr := calibrate(t, "--base-url", srv.URL, "--gpu", "h100-sxm")
			if code != 1 || strings.Contains(stderr, "--served-model") || strings.Contains(stderr, "destination type") {
				t.Errorf("calibrate --base-url %s = exit %d, stderr %q; want 1, no advice to name the model", srv.URL, code, stderr)
			}
			for _, w := range want {
				if !strings.Contains(stderr, w) {
					t.Errorf("calibrate stderr = %q, want %q", stderr, w)
				}
			}
		})
	}
}

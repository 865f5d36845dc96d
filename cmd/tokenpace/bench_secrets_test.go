package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tokenpace/tokenpace/simulate"
)

// TestBenchNeverPrintsTheKey: the key from OPENAI_API_KEY appears in
// neither the text nor the JSON report, of a clean run or of one against a
// server that quotes the key in its 401.
func TestBenchNeverPrintsTheKey(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	const key = "sk-proj-secret-0123456789abcdef"
	t.Setenv("OPENAI_API_KEY", key)
	echo := unauthorizedServer(t, func(r *http.Request) string {
		return "Incorrect API key provided: " + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	})
	sim := simulate.StartLoopback(t, simulate.WithModel("sim", &simulate.Fixed{TTFT: time.Millisecond, ITL: time.Millisecond}))
	for _, tt := range []struct {
		name, url string
		json      bool
		wantCode  int
	}{
		{"clean, text", sim.URL, false, 0},
		{"clean, JSON", sim.URL, true, 0},
		{"401 quoting the key, text", echo.URL + "/v1", false, 1},
		{"401 quoting the key, JSON", echo.URL + "/v1", true, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := []string{"--base-url", tt.url, "--model", "sim", "--requests", "3", "--concurrency", "1", "--max-tokens", "4"}
			if tt.json {
				args = append(args, "--json")
			}
			code, stdout, stderr := bench(t, t.Context(), args...)
			if code != tt.wantCode || stdout == "" {
				t.Errorf("exit = %d, stdout %q, want %d and a report (stderr %q)", code, stdout, tt.wantCode, stderr)
			}
			if strings.Contains(stdout+stderr, key) || strings.Contains(stdout+stderr, "0123456789abcdef") {
				t.Errorf("the API key appears in the output: stdout %q, stderr %q", stdout, stderr)
			}
		})
	}
}

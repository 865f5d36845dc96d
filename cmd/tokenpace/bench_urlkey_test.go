package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"github.com/tokenpace/tokenpace/simulate"
)

// A key given in the base URL's query (Gemini's OpenAI-compatible
// endpoint and many proxies take ?key=), or quoted back by a server's
// 401, appears in no output: not the text or JSON report, not the HTML
// report, not the export. The URL's query was printed as given, as the
// endpoint of every report.
func TestBenchNeverWritesAKeyToAFile(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	const key, urlKey = "sk-proj-secret-0123456789abcdef", "AIzaQUERYSECRET42"
	t.Setenv("OPENAI_API_KEY", key)
	echo := unauthorizedServer(t, func(r *http.Request) string {
		return "Incorrect API key provided: " + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ") + " " + r.URL.RawQuery
	})
	sim := simulate.StartLoopback(t, simulate.WithModel("sim", &simulate.Fixed{TTFT: time.Millisecond, ITL: time.Millisecond}))
	for _, tt := range []struct {
		name, url string
		wantCode  int
	}{
		{"key in the query", sim.URL + "?key=" + urlKey, 0},
		{"key in the query, 401 quoting both", echo.URL + "/v1?key=" + urlKey, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			report, export := filepath.Join(dir, "r.html"), filepath.Join(dir, "e.jsonl")
			for _, asJSON := range []bool{false, true} {
				args := []string{"--base-url", tt.url, "--model", "sim", "--requests", "2", "--concurrency", "1", "--max-tokens", "4", "--report", report, "--export", export}
				if asJSON {
					args = append(args, "--json")
				}
				code, stdout, stderr := bench(t, t.Context(), args...)
				if code != tt.wantCode || stdout == "" {
					t.Errorf("bench %q exit = %d, stdout %q, want %d and a report (stderr %q)", args, code, stdout, tt.wantCode, stderr)
				}
				out := map[string]string{"stdout": stdout, "stderr": stderr}
				for _, path := range []string{report, export} {
					b, err := os.ReadFile(path)
					if err != nil {
						t.Fatal(err)
					}
					out[filepath.Base(path)] = string(b)
				}
				for where, text := range out {
					for _, secret := range []string{key, urlKey} {
						if strings.Contains(text, secret) {
							i := strings.Index(text, secret)
							t.Errorf("bench --json=%v: %s holds the key %q: …%s…", asJSON, where, secret, text[max(i-60, 0):min(i+40, len(text))])
						}
					}
				}
			}
		})
	}
}

// calibrate --base-url with a key in the query: the key appears neither
// in its messages nor in the deployment file, whose "from" listed the URL
// as given, one run after another.
func TestCalibrateNeverWritesAKeyInTheURL(t *testing.T) {
	const urlKey = "AIzaQUERYSECRET42"
	t.Run("refused", func(t *testing.T) {
		echo := unauthorizedServer(t, func(r *http.Request) string { return "Incorrect API key provided: " + r.URL.RawQuery })
		code, stdout, stderr := calibrate(t, "--base-url", echo.URL+"/v1?key="+urlKey, "--params-b", "8", "--gpu", "h100-sxm", "--out", filepath.Join(t.TempDir(), "d.json"))
		if code == 0 || strings.Contains(stdout+stderr, urlKey) {
			t.Errorf("calibrate against a 401 = exit %d, stdout %q, stderr %q; want a failure that does not print the key", code, stdout, stderr)
		}
	})
	t.Run("fitted", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			serveCalibration(t, simulate.Deployment{}, "", false)
			out := filepath.Join(t.TempDir(), "deploy.json")
			code, stdout, stderr := calibrate(t, "--base-url", "http://in-memory/v1?key="+urlKey, "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--out", out)
			if code != 0 {
				t.Fatalf("calibrate exit %d: %s", code, stderr)
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			for where, text := range map[string]string{"stdout": stdout, "stderr": stderr, "the deployment file": string(b)} {
				if i := strings.Index(text, urlKey); i >= 0 {
					t.Errorf("%s holds the key: …%s…", where, text[max(i-60, 0):min(i+40, len(text))])
				}
			}
		})
	})
}

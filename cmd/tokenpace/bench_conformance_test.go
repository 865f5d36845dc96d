package main

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// TestBenchConformance runs bench against every chat stream of the
// conformance corpus (../../testdata/conformance), served over loopback:
// a complete answer never counts as a failure, whatever the server's
// habit, and a stream that broke always does.
func TestBenchConformance(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	paths, err := filepath.Glob("../../testdata/conformance/*.jsonl")
	if err != nil || len(paths) < 16 {
		t.Fatalf("conformance fixtures: %d (%v), want at least 16", len(paths), err)
	}
	ran := 0
	for _, p := range paths {
		head, body := loadStream(t, p)
		if head.Request.Path != "/v1/chat/completions" {
			continue
		}
		ran++
		t.Run(filepath.Base(p), func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.HasSuffix(r.URL.Path, "/models") {
					w.Header().Set("Content-Type", "application/json")
					_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"` + head.Request.Body.Model + `","object":"model"}]}`))
					return
				}
				for k, v := range head.Headers {
					w.Header().Set(k, v)
				}
				_, _ = w.Write([]byte(body))
			}))
			defer srv.Close()
			out := benchJSON(t, t.Context(), wantCode(head), "--base-url", srv.URL+"/v1", "--model", head.Request.Body.Model,
				"--requests", "4", "--concurrency", "2", "--max-tokens", "8")
			want := 0.0
			if head.Expect.Error != "" {
				want = 4
			}
			if *out.Failed != want {
				t.Errorf("failed = %v (errors %v), want %v", *out.Failed, out.Errors, want)
			}
		})
	}
	if ran < 12 {
		t.Errorf("%d chat fixtures, want at least 12", ran)
	}
}

// streamHead is what bench needs of a fixture's first line.
type streamHead struct {
	Headers map[string]string
	Request struct {
		Path string
		Body struct{ Model string }
	}
	Expect struct{ Error string }
}

// wantCode is bench's exit code for a fixture: 1 when no request can
// complete.
func wantCode(h streamHead) int {
	if h.Expect.Error != "" {
		return 1
	}
	return 0
}

// loadStream reads a fixture: its first line, and its body as the reads
// joined.
func loadStream(t *testing.T, path string) (streamHead, string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	var head streamHead
	var body strings.Builder
	for i := 0; sc.Scan(); i++ {
		if i == 0 {
			if err := json.Unmarshal(sc.Bytes(), &head); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			continue
		}
		var r struct{ Data string }
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s line %d: %v", path, i+1, err)
		}
		body.WriteString(r.Data)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return head, body.String()
}

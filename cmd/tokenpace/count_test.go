package main

import (
	"strings"
	"testing"
	"testing/synctest"
)

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0 requests", 1: "1 request", 2: "2 requests", 16: "16 requests"} {
		if got := count(n, "request"); got != want {
			t.Errorf("count(%d) = %q, want %q", n, got, want)
		}
	}
}

// A run of one request said "1 requests" in its load line.
func TestBenchOneRequestSaysRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		code, stdout, stderr := bench(t, t.Context(), "--requests", "1", "--concurrency", "1", "--prompt-tokens", "1", "--max-tokens", "4")
		if code != 0 {
			t.Fatalf("bench exit = %d (stderr %q)", code, stderr)
		}
		out := stdout + stderr
		if !strings.Contains(out, "1 request (") || !strings.Contains(out, "1 prompt token,") {
			t.Errorf("load line does not say one request of one prompt token:\n%s", out)
		}
		if strings.Contains(out, "1 requests") || strings.Contains(out, "1 prompt tokens") {
			t.Errorf("load line says a plural of one:\n%s", out)
		}
	})
}

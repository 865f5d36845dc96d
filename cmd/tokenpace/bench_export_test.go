package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tokenpace/tokenpace/simulate"
)

// bench --export writes one JSON line per measured request, in order,
// failed ones with their error.
func TestBenchExportsEveryRequest(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	ok := simulate.StartLoopback(t, simulate.WithModel("sim", &simulate.Fixed{TTFT: time.Millisecond, ITL: time.Millisecond}))
	broken := simulate.StartLoopback(t, simulate.WithModel("sim", &simulate.Fixed{TTFT: time.Millisecond, ITL: time.Millisecond}),
		simulate.WithFaults(simulate.Faults{ServerError: 1}))
	for _, tt := range []struct {
		url, wantErr string
		code         int
	}{{ok.URL, "", 0}, {broken.URL, "500", 1}} {
		path := filepath.Join(t.TempDir(), "requests.jsonl")
		code, _, stderr := bench(t, t.Context(), "--base-url", tt.url, "--model", "sim", "--requests", "6", "--concurrency", "3",
			"--max-tokens", "4", "--warmup", "1", "--export", path)
		if code != tt.code {
			t.Fatalf("exit = %d, want %d (stderr %q)", code, tt.code, stderr)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(lines) != 6 {
			t.Fatalf("%d lines, want 6:\n%s", len(lines), b)
		}
		for i, line := range lines {
			var r requestRow
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("line %d: %v", i, err)
			}
			if r.I != i || r.Sent == nil || r.End == nil || r.Error != tt.wantErr || r.HTTPTries != 1 {
				t.Errorf("line %d = %+v, want request %d, sent and ended, error %q", i, r, i, tt.wantErr)
			}
			if tt.wantErr == "" && (r.FirstToken == nil || r.TTFTMs <= 0 || r.OutputTokens != 4 || !r.UsageReported) {
				t.Errorf("line %d = %+v, want a first token and 4 output tokens from usage", i, r)
			}
		}
	}
}

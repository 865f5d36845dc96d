package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
)

// A bench report whose figures no run measures is refused by calibrate
// --from, naming the file and the figure, instead of fitted: a prompt of
// 1e9 tokens (past any model's context), a mean TTFT of 1e308 ms, a
// negative TPOT or count.
func TestCalibrateRefusesImpossibleFigures(t *testing.T) {
	dir := t.TempDir()
	runs := []string{filepath.Join(dir, "run1.json"), filepath.Join(dir, "run2.json")}
	synctest.Test(t, func(t *testing.T) {
		benchToFile(t, runs[0], "256", "1", "3")
		benchToFile(t, runs[1], "2048", "16", "16")
	})
	raw, err := os.ReadFile(runs[1])
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		change func(m map[string]any)
		want   string
	}{
		{"prompt past any context", func(m map[string]any) { m["prompt_tokens"] = 1e9 }, "prompt_tokens"},
		{"TTFT past a duration", func(m map[string]any) { m["ttft_ms"].(map[string]any)["mean"] = 1e308 }, "ttft_ms.mean"},
		{"negative TPOT", func(m map[string]any) { m["tpot_ms"].(map[string]any)["mean"] = -7 }, "tpot_ms.mean"},
		{"negative concurrency", func(m map[string]any) { m["concurrency"] = -16 }, "concurrency"},
		{"negative output", func(m map[string]any) { m["output_tokens"] = -1024 }, "output_tokens"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var m map[string]any
			if err := json.Unmarshal(raw, &m); err != nil {
				t.Fatal(err)
			}
			tc.change(m)
			b, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			bad := filepath.Join(t.TempDir(), "bad.json")
			if err := os.WriteFile(bad, b, 0o600); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "deploy.json")
			code, stdout, stderr := calibrate(t, "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--from", runs[0], "--from", bad, "--out", out)
			if code != 1 || !strings.Contains(stderr, "bad.json") || !strings.Contains(stderr, tc.want) {
				t.Errorf("calibrate --from %s = exit %d, stdout %q, stderr %q; want 1 naming bad.json and %s", tc.name, code, stdout, stderr, tc.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("calibrate --from %s wrote a deployment file", tc.name)
			}
		})
	}
}

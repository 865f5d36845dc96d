package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
)

// calibrate --from reads a closed loop of --prompt-tokens prompts. A
// replayed trace's report holds bench's default prompt_tokens (256) and
// max_tokens (128), not the traced lengths it sent (11,520 prompt tokens
// a request for the Mooncake sample), and a sessions report the tokens of
// one turn, not the conversation each turn carries: both were fitted as
// if they were such a loop. They are refused, naming the file and why.
func TestCalibrateRefusesLoadsItCannotRead(t *testing.T) {
	dir := t.TempDir()
	closed := filepath.Join(dir, "closed.json")
	other := map[string]string{"trace.json": "trace", "sessions.json": "sessions"}
	synctest.Test(t, func(t *testing.T) {
		benchToFile(t, closed, "256", "1", "3")
		for name, args := range map[string][]string{
			"trace.json":    {"--trace", traceSample("mooncake_conversation_sample.jsonl")},
			"sessions.json": {"--sessions", "2", "--turns", "3", "--think", "10ms", "--prompt-tokens", "200", "--max-tokens", "32"},
		} {
			code, stdout, stderr := bench(t, t.Context(), append(append([]string{"--json"}, args...), deploymentX...)...)
			if code != 0 {
				t.Fatalf("bench %q exit %d: %s", args, code, stderr)
			}
			if err := os.WriteFile(filepath.Join(dir, name), []byte(stdout), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	})
	for name, kind := range other {
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(dir, "deploy-"+name)
			code, stdout, stderr := calibrate(t, "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--from", closed, "--from", filepath.Join(dir, name), "--out", out)
			if code != 1 || !strings.Contains(stderr, name) || !strings.Contains(stderr, kind) {
				t.Errorf("calibrate --from closed.json --from %s = exit %d, stdout %q, stderr %q; want 1, naming the file and its %s load", name, code, stdout, stderr, kind)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("calibrate --from %s wrote a deployment file", name)
			}
		})
	}
}

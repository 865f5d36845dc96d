package main

import (
	"bytes"
	"strings"
	"testing"
	"testing/synctest"
)

// A bad model or hardware flag is a usage error, exit 2, in every command
// that takes them: predict and calibrate exited 1 (as for a failed run)
// where sim and bench exited 2 for the same flag.
func TestBadDeploymentFlagsExitTwoEverywhere(t *testing.T) {
	for _, bad := range [][]string{
		{"--gpus", "0"},
		{"--gpu", "voodoo5"},
		{"--mbu", "1.5"},
		{"--model", "gpt-17"},
		{"--interconnect-latency", "-1s"},
	} {
		for _, cmd := range [][]string{
			{"predict"},
			{"sim", "--addr", "127.0.0.1:0"},
			{"bench", "--requests", "1"},
			{"calibrate", "--base-url", "http://127.0.0.1:1/v1", "--out", "unused.json"},
		} {
			args := append(append([]string{}, cmd...), bad...)
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) { checkExitTwo(t, args, bad[0]) })
			})
		}
	}
}

// checkExitTwo runs tokenpace with args and fails t unless it exits 2
// naming flag, or the figure it sets (MBU for --mbu).
func checkExitTwo(t *testing.T, args []string, flag string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), args, &stdout, &stderr)
	if code != 2 || !strings.Contains(strings.ToLower(stderr.String()), strings.TrimPrefix(flag, "--")) {
		t.Errorf("tokenpace %q = exit %d, stderr %q; want 2 naming %s", args, code, stderr.String(), flag)
	}
}

// A load predict cannot simulate is a usage error too: --output-tokens 0
// exited 2 and --output-tokens 1000000000 exited 1.
func TestPredictOutOfRangeLoadExitsTwo(t *testing.T) {
	for _, bad := range [][]string{
		{"--output-tokens", "1000000000"},
		{"--concurrency", "1000000000"},
		{"--prompt-tokens", "1000000000"},
	} {
		t.Run(bad[0], func(t *testing.T) {
			args := append([]string{"predict", "--model", "llama-3.2-1b"}, bad...)
			var stdout, stderr bytes.Buffer
			if code := run(t.Context(), args, &stdout, &stderr); code != 2 || stdout.Len() != 0 {
				t.Errorf("tokenpace %q = exit %d, stdout %q, stderr %q; want 2 and no prediction", args, code, stdout.String(), stderr.String())
			}
		})
	}
}

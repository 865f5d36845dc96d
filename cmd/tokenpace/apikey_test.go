package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
)

// A key that an HTTP header cannot carry (a trailing line break, as a key
// pasted from a file often has) is said to be the problem, naming the
// variable and never the key: bench and calibrate said "cannot reach
// http://…: net/http: invalid header field value for "Authorization"", as
// if the server were down.
func TestAKeyAHeaderCannotCarry(t *testing.T) {
	const key = "sk-proj-secret-0123456789abcdef"
	sim := simulate.StartLoopback(t, simulate.WithModel("sim", &simulate.Fixed{TTFT: time.Millisecond, ITL: time.Millisecond}))
	for _, bad := range []string{key + "\n", key + "\r\n", "\t" + key + "\x7f"} {
		t.Setenv("TOKENPACE_TEST_KEY", bad)
		for _, args := range [][]string{
			{"bench", "--base-url", sim.URL, "--model", "sim", "--requests", "1", "--api-key-env", "TOKENPACE_TEST_KEY"},
			{"calibrate", "--base-url", sim.URL, "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--served-model", "sim", "--out", t.TempDir() + "/d.json", "--api-key-env", "TOKENPACE_TEST_KEY"},
		} {
			var stdout, stderr bytes.Buffer
			code := run(t.Context(), args, &stdout, &stderr)
			if code != 2 || !strings.Contains(stderr.String(), "TOKENPACE_TEST_KEY") || strings.Contains(stderr.String(), "cannot reach") || strings.Contains(stdout.String()+stderr.String(), "0123456789abcdef") {
				t.Errorf("tokenpace %s with a key ending %q = exit %d, stderr %q; want 2 naming TOKENPACE_TEST_KEY, not the key", args[0], bad[len(bad)-1:], code, stderr.String())
			}
		}
	}
}

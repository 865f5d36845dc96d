package main

import (
	"flag"
	"io"
	"strings"
	"testing"
	"testing/synctest"
)

// --draft-acceptance and --draft-cost shape speculative decoding, which
// only --draft-tokens turns on: without it they were taken and ignored by
// every command that takes them.
func TestDraftFiguresWithoutDraftTokensRefused(t *testing.T) {
	for _, bad := range [][]string{
		{"--draft-acceptance", "0.9"},
		{"--draft-cost", "0.2"},
		{"--draft-cost", "0.2", "--draft-tokens", "0"},
	} {
		for _, cmd := range [][]string{
			{"predict"},
			{"sim", "--addr", "127.0.0.1:0"},
			{"bench", "--requests", "1"},
			{"calibrate", "--base-url", "http://127.0.0.1:1/v1", "--out", "unused.json"},
		} {
			args := append(append([]string{}, cmd...), bad...)
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) { checkExitTwo(t, args, bad[0]+" shapes speculative decoding") })
			})
		}
	}
}

// sim's fixed timing (--ttft, --itl) times no engine: an engine flag set
// beside it was ignored (--draft-tokens, --kv-policy, --max-running).
func TestSimFixedTimingRefusesEngineFlags(t *testing.T) {
	for _, bad := range [][]string{
		{"--draft-tokens", "4"},
		{"--kv-policy", "preempt"},
		{"--max-running", "8"},
		{"--gpus", "2"},
	} {
		args := append([]string{"sim", "--addr", "127.0.0.1:0", "--ttft", "100ms"}, bad...)
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { checkExitTwo(t, args, bad[0]+" describes the simulated") })
		})
	}
}

// The help of --draft-acceptance and --draft-cost says they need
// --draft-tokens, which a run without it now refuses; it did not.
func TestDraftFlagsHelpNamesDraftTokens(t *testing.T) {
	fs := flag.NewFlagSet("predict", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	addDeploymentFlags(fs)
	for _, name := range []string{"draft-acceptance", "draft-cost"} {
		if usage := fs.Lookup(name).Usage; !strings.Contains(usage, "with --draft-tokens") {
			t.Errorf("--%s help %q does not say it needs --draft-tokens", name, usage)
		}
	}
}

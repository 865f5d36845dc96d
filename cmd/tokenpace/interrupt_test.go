package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
)

// Ctrl-C (or SIGTERM) stops calibrate's designed runs: the command line
// catches both signals for every command, and calibrate ran its loads on
// a context of its own, so the interrupt was swallowed and the runs went
// on to the end (minutes, against a real server), then wrote the file.
func TestCalibrateStopsWhenInterrupted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		serveCalibration(t, simulate.Deployment{}, "", false)
		out := filepath.Join(t.TempDir(), "deploy.json")
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second) // the runs take 20 s and more
		defer cancel()
		var stdout, stderr bytes.Buffer
		code := run(ctx, []string{"calibrate", "--base-url", "http://in-memory/v1", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--out", out}, &stdout, &stderr)
		if code != 130 || !strings.Contains(stderr.String(), "interrupted") {
			t.Errorf("calibrate interrupted after 2s = exit %d, stderr %q; want 130 and saying it was interrupted", code, stderr.String())
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("an interrupted calibrate wrote %s", out)
		}
	})
}

// Ctrl-C (or SIGTERM) stops plan: the command line catches both signals
// for every command, and plan did not look, so a search of minutes could
// be stopped only by killing the process.
func TestPlanStopsWhenInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	var stdout, stderr bytes.Buffer
	code := run(ctx, append([]string{"plan", "--model", "llama-3.1-8b", "--rate", "5", "--slo-ttft-p99", "500ms"}, smallSearch...), &stdout, &stderr)
	if code != 130 || stdout.Len() != 0 || !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("plan interrupted = exit %d, stdout %q, stderr %q; want 130, no pick, and saying it was interrupted", code, stdout.String(), stderr.String())
	}
}

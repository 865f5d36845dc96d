package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/tokenpace/tokenpace/simulate"
)

// An output file in a directory that does not exist is refused before
// any work, naming the flag: bench ran every request and printed its
// report, then stopped at "export: open …/e.jsonl: no such file or
// directory" without writing --plot or --report either; plan searched,
// then failed on --plot; calibrate fitted, then failed on --out.
func TestOutputFilesInAMissingDirectory(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-dir")
	for _, tc := range []struct {
		flag string
		args []string
	}{
		{"--export", []string{"bench", "--requests", "2", "--export", filepath.Join(missing, "e.jsonl")}},
		{"--report", []string{"bench", "--requests", "2", "--report", filepath.Join(missing, "r.html")}},
		{"--plot", []string{"bench", "--requests", "2", "--plot", filepath.Join(missing, "p.svg")}},
		{"--plot", append([]string{"plan", "--model", "llama-3.1-8b", "--rate", "5", "--slo-ttft-p99", "500ms", "--plot", filepath.Join(missing, "p.svg")}, smallSearch...)},
		{"--out", []string{"calibrate", "--base-url", "http://in-memory/v1", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--out", filepath.Join(missing, "d.json")}},
	} {
		t.Run(strings.Join(tc.args[:1], " ")+" "+tc.flag, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				serveCalibration(t, simulate.Deployment{}, "", false)
				var stdout, stderr bytes.Buffer
				code := run(t.Context(), tc.args, &stdout, &stderr)
				if code != 2 || stdout.Len() != 0 || !strings.Contains(stderr.String(), tc.flag) || !strings.Contains(stderr.String(), "no-such-dir") {
					t.Errorf("tokenpace %q = exit %d, stdout %q, stderr %q; want 2 before any work, naming %s and the directory", tc.args, code, stdout.String(), stderr.String(), tc.flag)
				}
			})
		})
	}
}

// An output file that fails once the run is done (here --export names a
// directory) leaves the others to be written: a run's figures are dear to
// make again. bench wrote neither the plot nor the report after a failed
// export.
func TestBenchWritesTheOtherFilesWhenOneFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		report, plot := filepath.Join(dir, "r.html"), filepath.Join(dir, "p.svg")
		var stdout, stderr bytes.Buffer
		code := run(t.Context(), []string{"bench", "--requests", "2", "--export", dir, "--plot", plot, "--report", report}, &stdout, &stderr)
		if code != 1 || !strings.Contains(stderr.String(), "export") {
			t.Errorf("exit %d, stderr %q; want 1, naming the export", code, stderr.String())
		}
		for _, p := range []string{plot, report} {
			if st, err := os.Stat(p); err != nil || st.Size() == 0 {
				t.Errorf("%s: %v; want it written", filepath.Base(p), err)
			}
		}
	})
}

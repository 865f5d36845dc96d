package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
)

func calibrate(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = runCalibrate(args, &out, &errb)
	return code, out.String(), errb.String()
}

// deploymentX is a deployment whose constants are not the class defaults:
// what calibrate has to find from bench runs.
var deploymentX = []string{"--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--mbu", "0.55", "--mfu", "0.3", "--step-overhead", "3ms"}

// benchToFile benches the embedded simulator serving deployment X at one
// load (a closed loop of conc clients sending requests in all) and writes
// its JSON report.
func benchToFile(t *testing.T, path string, prompt, conc, requests string) benchOut {
	t.Helper()
	args := append([]string{"--json", "--requests", requests, "--concurrency", conc, "--prompt-tokens", prompt, "--max-tokens", "64"}, deploymentX...)
	code, stdout, stderr := bench(t, t.Context(), args...)
	if code != 0 {
		t.Fatalf("bench %q exit %d: %s", args, code, stderr)
	}
	if err := os.WriteFile(path, []byte(stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	var out benchOut
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCalibrateRoundTrip benches the simulator serving deployment X at two
// loads on virtual time, calibrates a deployment file from the two reports,
// and checks that predict with that file gives X's measured TTFT and TPOT
// at a third load within 5 %.
func TestCalibrateRoundTrip(t *testing.T) {
	dir := t.TempDir()
	runs := []string{filepath.Join(dir, "run1.json"), filepath.Join(dir, "run2.json")}
	deploy := filepath.Join(dir, "deploy.json")
	var third benchOut
	synctest.Test(t, func(t *testing.T) {
		benchToFile(t, runs[0], "256", "1", "3")
		benchToFile(t, runs[1], "2048", "16", "16")
		third = benchToFile(t, filepath.Join(dir, "run3.json"), "1024", "4", "12")
	})
	code, stdout, stderr := calibrate(t, "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--from", runs[0], "--from", runs[1], "--out", deploy)
	if code != 0 {
		t.Fatalf("calibrate exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "residuals:") || !strings.Contains(stdout, "MBU") {
		t.Errorf("calibrate output lacks the fit and its residuals:\n%s", stdout)
	}
	code, out, stderr := predict(t, "--json", "--deployment", deploy, "--prompt-tokens", "1024", "--concurrency", "4", "--requests", "12", "--output-tokens", "64")
	if code != 0 {
		t.Fatalf("predict --deployment exit %d: %s", code, stderr)
	}
	var p map[string]any
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	// bench's embedded simulator serves the file, and its prediction is
	// the file's.
	var served benchOut
	synctest.Test(t, func(t *testing.T) {
		served = benchJSON(t, t.Context(), 0, "--deployment", deploy, "--requests", "12", "--concurrency", "4", "--prompt-tokens", "1024", "--max-tokens", "64")
	})
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"bench --deployment ttft_ms.mean", served.TTFT["mean"], p["ttft_ms"].(float64)},
		{"bench --deployment tpot_ms.mean", served.TPOT["mean"], p["tpot_ms"].(float64)},
	} {
		if e := (c.got - c.want) / c.want; math.Abs(e) > 0.01 {
			t.Errorf("%s = %.2f, want predict --deployment's %.2f within 1%%", c.name, c.got, c.want)
		}
	}
	for _, c := range []struct {
		name          string
		got, measured float64
	}{
		{"ttft_ms", p["ttft_ms"].(float64), third.TTFT["mean"]},
		{"tpot_ms", p["tpot_ms"].(float64), third.TPOT["mean"]},
	} {
		if e := (c.got - c.measured) / c.measured; math.Abs(e) > 0.05 {
			t.Errorf("predict --deployment %s at the third load = %.2f, bench of X measured %.2f: error %+.1f%%, want within 5%%", c.name, c.got, c.measured, 100*e)
		} else {
			t.Logf("%s at the third load: predicted %.2f, measured %.2f (%+.2f%%)", c.name, c.got, c.measured, 100*e)
		}
	}
}

func TestCalibrateRejects(t *testing.T) {
	dir := t.TempDir()
	one := filepath.Join(dir, "one.json")
	synctest.Test(t, func(t *testing.T) { benchToFile(t, one, "256", "1", "1") })
	junk := filepath.Join(dir, "junk.json")
	if err := os.WriteFile(junk, []byte(`{"hello": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.json")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no runs", []string{"--out", out}, 2, "--from"},
		{"no out", []string{"--from", one}, 2, "--out"},
		{"fits what it is told", []string{"--from", one, "--out", out, "--mbu", "0.5"}, 2, "what calibrate fits"},
		{"one load", []string{"--from", one, "--out", out}, 1, "not well-posed"},
		{"not a report", []string{"--from", junk, "--from", one, "--out", out}, 1, "not a tokenpace bench --json report"},
		{"missing file", []string{"--from", filepath.Join(dir, "nope.json"), "--out", out}, 1, "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := calibrate(t, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("calibrate %q = exit %d, stderr %q; want exit %d mentioning %q", tc.args, code, stderr, tc.code, tc.want)
			}
		})
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a failed calibrate wrote %s", out)
	}
}

func TestDeploymentFileRejects(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content string
		extra         []string
		want          string
	}{
		{"not JSON", "nonsense", nil, "not a deployment file"},
		{"unknown field", `{"version": 1, "deployment": {}, "extra": 1}`, nil, "unknown field"},
		{"wrong version", `{"version": 7, "deployment": {}}`, nil, "version 7"},
		{"impossible", `{"version": 1, "deployment": {"MBU": 3}}`, nil, "MBU"},
		{"with other flags", `{"version": 1, "deployment": {}}`, []string{"--gpu", "h100"}, "exclude each other"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".json")
			if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, stderr := predict(t, append([]string{"--deployment", path}, tc.extra...)...)
			if code == 0 || !strings.Contains(stderr, tc.want) {
				t.Errorf("predict --deployment (%s) = exit %d, stderr %q; want a failure mentioning %q", tc.name, code, stderr, tc.want)
			}
		})
	}
}

// TestCalibrateBoundsTheSimulatedRun checks that a long bench run is
// simulated as a few waves of its closed loop, not request by request.
func TestCalibrateBoundsTheSimulatedRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "long.json")
	report := `{"concurrency": 8, "planned_requests": 100000, "rate": 0, "prompt_tokens": 512, "max_tokens": 256,
		"completed": 100000, "output_tokens": 25600000, "ttft_ms": {"mean": 40}, "tpot_ms": {"mean": 9}}`
	if err := os.WriteFile(path, []byte(report), 0o644); err != nil {
		t.Fatal(err)
	}
	obs, err := observationsFrom(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range obs {
		s := o.Scenario
		if s.Concurrency != 8 || s.Requests < 16 || s.Requests*s.OutputTokens > maxCalibrateTokens {
			t.Errorf("observation %s: scenario %+v, want 8 clients and at least 2 waves within %d output tokens", o.Metric, s, maxCalibrateTokens)
		}
	}
}

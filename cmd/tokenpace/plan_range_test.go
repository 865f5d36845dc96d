package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A rate whose arrivals no clock can schedule is refused, not planned
// for: at 1e308 req/s every gap rounded to 0 and 22 GPUs "met the SLO" at
// $0.000 per 1M output tokens; at 1e-300, or at 1e-6 for 100,000
// requests, the arrival times overflowed and a single L4 "missed" with a
// TTFT p99 of 8384984952704 ms.
func TestPlanRejectsRatesItCannotSchedule(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--rate", "1e308"}, "[1e-06, 1e+06]"},
		{[]string{"--rate", "1e-300"}, "[1e-06, 1e+06]"},
		{[]string{"--rate", "1e7"}, "[1e-06, 1e+06]"},
		{[]string{"--rate", "1e-7"}, "[1e-06, 1e+06]"},
		{[]string{"--rate", "1e-6", "--requests", "100000"}, "--requests 100000"},
	} {
		args := append(append([]string{"--model", "llama-3.1-8b", "--slo-ttft-p99", "500ms"}, smallSearch...), tc.args...)
		code, stdout, stderr := planCmd(t, args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, "--rate") || !strings.Contains(stderr, tc.want) {
			t.Errorf("plan %q = exit %d, stdout %q, stderr %q; want 2 and %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
}

// A --plot plan cannot draw is refused before the search, as bench
// refuses one: plan searched, printed nothing, and then exited 1 with
// "--plot: unsupported format: "gif"".
func TestPlanRejectsAPlotItCannotDraw(t *testing.T) {
	for _, name := range []string{"front.gif", "front", "front.pdf"} {
		args := append([]string{"--model", "llama-3.1-8b", "--rate", "5", "--slo-ttft-p99", "500ms", "--plot", filepath.Join(t.TempDir(), name)}, smallSearch...)
		code, stdout, stderr := planCmd(t, args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, "--plot") || !strings.Contains(stderr, ".png or .svg") {
			t.Errorf("plan --plot %s = exit %d, stdout %q, stderr %q; want 2 before any search, and the formats it draws", name, code, stdout, stderr)
		}
	}
}

// The rate of a bench report given as --workload is held to the range
// --rate is: a report saying 1e-300/s had every deployment miss with a
// TTFT p99 of 8384883670070 ms; one saying 1e+308/s had one L4 meet the
// SLO at $0.000 per 1M output tokens.
func TestPlanRejectsAWorkloadRateItCannotSchedule(t *testing.T) {
	for _, rate := range []float64{1e-300, 1e308} {
		report := filepath.Join(t.TempDir(), "run.json")
		b, err := json.Marshal(map[string]any{"endpoint": "x", "planned_requests": 4, "rate": rate, "prompt_tokens": 256, "max_tokens": 128, "completed": 4, "output_tokens": 512})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(report, b, 0o600); err != nil {
			t.Fatal(err)
		}
		args := append([]string{"--model", "llama-3.1-8b", "--slo-ttft-p99", "500ms", "--workload", report}, smallSearch...)
		code, stdout, stderr := planCmd(t, args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, "run.json") || !strings.Contains(stderr, "[1e-06, 1e+06]") {
			t.Errorf("plan --workload with rate %g = exit %d, stdout %q, stderr %q; want 2 naming the file and the range", rate, code, stdout, stderr)
		}
	}
}

// A bench report of sessions or of a replayed trace is not planned for
// as if each request were one prompt of prompt_tokens: sessions carry the
// conversation so far (a report of --prompt-tokens 100 planned 100-token
// prompts), and a trace's requests have their own lengths.
func TestPlanWorkloadRefusesReportsOfOtherLoads(t *testing.T) {
	dir := t.TempDir()
	for name, load := range map[string]string{
		"sessions.json": "2 sessions at once × 3 turns, 10ms think time; each turn adds 100 prompt tokens and carries the conversation so far, max_tokens 20",
		"trace.json":    "trace mooncake.jsonl: 11 requests (mooncake, over 30ms at 333/s)",
	} {
		path := filepath.Join(dir, name)
		report := map[string]any{"endpoint": "x", "planned_requests": 6, "concurrency": 2, "rate": 0, "prompt_tokens": 100, "max_tokens": 20,
			"completed": 6, "output_tokens": 120, "request_throughput": 3.2, "load": load}
		if name == "sessions.json" {
			report["turns"] = map[string]any{"first_turn_ttft_ms": map[string]float64{"count": 2}}
		}
		b, err := json.Marshal(report)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		args := append([]string{"--model", "llama-3.1-8b", "--slo-ttft-p99", "500ms", "--workload", path}, smallSearch...)
		code, stdout, stderr := planCmd(t, args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, name) || !strings.Contains(stderr, load[:10]) {
			t.Errorf("plan --workload %s = exit %d, stdout %q, stderr %q; want 2 naming the file and its load", name, code, stdout, stderr)
		}
	}
}

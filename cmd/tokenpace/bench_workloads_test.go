package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
)

// traceSample is the path of a sample trace of simulate/trace.
func traceSample(name string) string {
	return filepath.Join("..", "..", "simulate", "trace", "testdata", name)
}

// workloadOut is the part of bench's JSON report the workload tests read.
type workloadOut struct {
	Requests     int64  `json:"requests"`
	Planned      int64  `json:"planned_requests"`
	Completed    int64  `json:"completed"`
	InputTokens  int64  `json:"input_tokens"`
	CachedTokens int64  `json:"cached_tokens"`
	OutputTokens int64  `json:"output_tokens"`
	Load         string `json:"load"`
	Turns        *struct {
		First map[string]float64 `json:"first_turn_ttft_ms"`
		Later map[string]float64 `json:"later_turns_ttft_ms"`
	} `json:"turns"`
}

// benchWorkload runs bench --json with args in a bubble and decodes it.
func benchWorkload(t *testing.T, args ...string) workloadOut {
	t.Helper()
	var out workloadOut
	synctest.Test(t, func(t *testing.T) {
		code, stdout, stderr := bench(t, t.Context(), append([]string{"--json", "--model", "llama-3.2-1b"}, args...)...)
		if code != 0 {
			t.Fatalf("bench %q exit = %d, want 0 (stderr %q)", args, code, stderr)
		}
		if err := json.Unmarshal([]byte(stdout), &out); err != nil {
			t.Fatalf("bench %q: %v\n%s", args, err, stdout)
		}
	})
	return out
}

func TestBenchReplaysTraces(t *testing.T) {
	for _, tc := range []struct {
		file             string
		requests, output int64
		cached           bool
	}{
		// The first 40 Azure requests generate 4,430 tokens.
		{"azure_conv_sample.csv", 40, 4430, false},
		// BurstGPT: 8 requests; 2 the service failed are left out.
		{"burstgpt_sample.csv", 8, 1388, false},
		// Mooncake: every request shares block 0 (a system prompt); the
		// eleventh, 3 s after the first ten, finds it cached.
		{"mooncake_conversation_sample.jsonl", 11, 4270, true},
	} {
		out := benchWorkload(t, "--trace", traceSample(tc.file))
		if out.Planned != tc.requests || out.Completed != tc.requests || out.OutputTokens != tc.output {
			t.Errorf("bench --trace %s: planned %d, completed %d, output tokens %d; want %d, %[5]d, %d", tc.file, out.Planned, out.Completed, out.OutputTokens, tc.requests, tc.output)
		}
		if got := out.CachedTokens > 0; got != tc.cached {
			t.Errorf("bench --trace %s: %d cached prompt tokens, want some: %v", tc.file, out.CachedTokens, tc.cached)
		}
		if !strings.Contains(out.Load, "trace "+traceSample(tc.file)) {
			t.Errorf("bench --trace %s: load %q, want it to name the trace", tc.file, out.Load)
		}
	}
}

func TestBenchTraceWindowAndSpeedup(t *testing.T) {
	out := benchWorkload(t, "--trace", traceSample("azure_conv_sample.csv"), "--window-start", "5s", "--window", "5s", "--speedup", "10")
	if out.Completed == 0 || out.Completed >= 40 {
		t.Errorf("bench of a 5 s window of a 24 s trace completed %d requests, want some of the 40", out.Completed)
	}
	if !strings.Contains(out.Load, "window from 5s for 5s, sped up 10×") {
		t.Errorf("load %q, want it to say the window and the speedup", out.Load)
	}
}

// TestBenchTraceLatenessNamesTheTrace replays a trace ten times faster
// through one slot: the client holds requests back, and its warning says
// what to change for a trace (--speedup), not --rate, which a trace
// replay refuses.
func TestBenchTraceLatenessNamesTheTrace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		args := []string{"--json", "--model", "llama-3.2-1b", "--trace", traceSample("azure_conv_sample.csv"), "--speedup", "10", "--concurrency", "1"}
		code, stdout, stderr := bench(t, t.Context(), args...)
		if code != 0 {
			t.Fatalf("bench %q exit = %d, want 0 (stderr %q)", args, code, stderr)
		}
		var out struct {
			Warnings []string `json:"warnings"`
		}
		if err := json.Unmarshal([]byte(stdout), &out); err != nil {
			t.Fatal(err)
		}
		for _, w := range append(out.Warnings, stderr) {
			if strings.Contains(w, "--rate") {
				t.Errorf("warning %q names --rate, which a trace replay does not take", w)
			}
		}
		if len(out.Warnings) != 1 || !strings.Contains(out.Warnings[0], "lower --speedup") || !strings.Contains(out.Warnings[0], "less load than the trace asked for") {
			t.Errorf("warnings = %q, want one saying to lower --speedup and that the server saw less load than the trace asked for", out.Warnings)
		}
	})
}

func TestBenchRejectsMalformedTraces(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(bad, []byte("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,44\n2023-11-16 18:15:50,lots,1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--trace", bad}, bad + `:3: ContextTokens "lots": want a whole number of tokens`},
		{[]string{"--trace", filepath.Join(dir, "missing.csv")}, "no such file"},
		{[]string{"--trace", traceSample("azure_conv_sample.csv"), "--trace-format", "parquet"}, `unknown format "parquet"`},
		{[]string{"--trace", traceSample("azure_conv_sample.csv"), "--rate", "3"}, "--trace sets the load"},
		{[]string{"--speedup", "2"}, "need --trace"},
		{[]string{"--trace", traceSample("azure_conv_sample.csv"), "--speedup", "0"}, "--speedup: trace: speedup must be a positive number, got 0"},
		{[]string{"--burstiness", "2"}, "--burstiness needs --rate"},
		{[]string{"--sessions", "2", "--requests", "9"}, "--sessions sets the load"},
		{[]string{"--find-max-rate"}, "--find-max-rate needs an SLO"},
		{[]string{"--report", "r.pdf"}, "want an .html file name"},
	} {
		code, _, stderr := bench(t, t.Context(), tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("bench %q = exit %d, stderr %q; want 2 and one line containing %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestBenchSessionsTurnsLine checks the printed turns line: figures for
// the turns measured, and "none measured" rather than 0 ms for later turns
// that never came (one turn per session).
func TestBenchSessionsTurnsLine(t *testing.T) {
	for _, tc := range []struct {
		turns, want string
	}{
		{"1", "on first turns, none measured on later turns"},
		{"2", " ms on later turns"},
	} {
		synctest.Test(t, func(t *testing.T) {
			args := []string{"--model", "llama-3.2-1b", "--sessions", "2", "--turns", tc.turns, "--think", "1s", "--prompt-tokens", "64", "--max-tokens", "8"}
			code, stdout, stderr := bench(t, t.Context(), args...)
			if code != 0 {
				t.Fatalf("bench %q exit = %d, want 0 (stderr %q)", args, code, stderr)
			}
			if !strings.Contains(stdout, "turns       TTFT p50 ") || !strings.Contains(stdout, tc.want) || strings.Contains(stdout, "0.0 / 0.0 ms") {
				t.Errorf("bench --turns %s printed\n%s\nwant a turns line with %q and no 0.0 / 0.0 ms", tc.turns, stdout, tc.want)
			}
		})
	}
}

func TestBenchGammaArrivals(t *testing.T) {
	out := benchWorkload(t, "--rate", "20", "--burstiness", "4", "--requests", "60", "--max-tokens", "8")
	if out.Completed != 60 || !strings.Contains(out.Load, "gamma arrivals at 20/s with burstiness (CV) 4") {
		t.Errorf("bench --burstiness 4: completed %d, load %q; want 60 and the gamma arrivals named", out.Completed, out.Load)
	}
}

func TestBenchSessionsReportFirstAndLaterTurns(t *testing.T) {
	out := benchWorkload(t, "--sessions", "3", "--turns", "4", "--think", "1s", "--prompt-tokens", "200", "--max-tokens", "20")
	if out.Completed != 12 || out.Turns == nil {
		t.Fatalf("bench --sessions 3 --turns 4: completed %d, turns %v; want 12 and per-turn figures", out.Completed, out.Turns)
	}
	if got := [2]float64{out.Turns.First["count"], out.Turns.Later["count"]}; got != [2]float64{3, 9} {
		t.Errorf("turn TTFT counts (first, later) = %v, want [3 9]", got)
	}
	// Each turn carries the ones before it: turn k sends about k·(200+20)
	// prompt tokens, 3·(200+420+640+860) = 6,360 in all.
	if out.InputTokens < 6000 || out.InputTokens > 6800 {
		t.Errorf("sessions sent %d prompt tokens, want about 6,360 (each turn carrying the conversation so far)", out.InputTokens)
	}
	// The simulator keeps a finished turn's prompt and reply cached: later
	// turns find their history there, about 3·(220+440+660) = 3,960 tokens
	// with the chat framing, less the rounding to KV blocks.
	if out.CachedTokens < 3500 || out.CachedTokens > 4400 {
		t.Errorf("sessions had %d prompt tokens served from the prefix cache, want about 4,000 (each later turn's history)", out.CachedTokens)
	}
}

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
)

// A report that holds what no run measures (a negative count, a latency
// below zero or past a Duration) is refused by --compare, naming the file
// and the figure: -5 ms was compared as "-1381.9%", and 1e308 ms as
// -9223372036854.78 ms. A report of another shape is refused without Go's
// type names.
func TestBenchCompareRejectsImpossibleFigures(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	synctest.Test(t, func(t *testing.T) {
		code, stdout, stderr := bench(t, t.Context(), "--json", "--model", "llama-3.2-1b", "--requests", "4", "--concurrency", "2", "--prompt-tokens", "64", "--max-tokens", "8")
		if code != 0 {
			t.Fatalf("bench exit %d: %s", code, stderr)
		}
		if err := os.WriteFile(good, []byte(stdout), 0o600); err != nil {
			t.Fatal(err)
		}
	})
	raw, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	edit := func(name string, change func(m map[string]any)) string {
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		change(m)
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	dist := func(m map[string]any, name string) map[string]any { return m[name].(map[string]any) }
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, tc := range []struct {
		path string
		want []string
	}{
		{edit("negative.json", func(m map[string]any) { m["completed"] = -3 }), []string{"negative.json", "completed", "-3"}},
		{edit("below.json", func(m map[string]any) { dist(m, "ttft_ms")["p50"] = -5 }), []string{"below.json", "ttft_ms.p50", "-5"}},
		{edit("past.json", func(m map[string]any) { dist(m, "e2e_ms")["p99"] = 1e308 }), []string{"past.json", "e2e_ms.p99", "1e+308"}},
		{edit("rate.json", func(m map[string]any) { m["request_throughput"] = -1 }), []string{"rate.json", "request_throughput"}},
		{write("array.json", "[]"), []string{"array.json", "not a bench --json report"}},
		{write("text.json", `{"endpoint": "x", "ttft_ms": {"p50": "fast"}}`), []string{"text.json", "ttft_ms is a JSON string, want a number"}},
	} {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			code, stdout, stderr := bench(t, t.Context(), "--compare", tc.path, good)
			if code != 1 || stdout != "" || strings.Contains(stderr, "struct") || strings.Contains(stderr, "Go value") {
				t.Errorf("bench --compare %s good.json = exit %d, stdout %q, stderr %q; want 1, nothing printed, no Go type names", filepath.Base(tc.path), code, stdout, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("bench --compare %s good.json stderr = %q, want it to mention %q", filepath.Base(tc.path), stderr, w)
				}
			}
		})
	}
}

// --compare reads two saved reports and runs nothing, so a flag of a run
// given with it (--plot, --rate, …, before or after the reports) is
// refused by name rather than ignored: --plot wrote no plot, with exit 0.
// --report and --json still apply.
func TestBenchCompareRefusesTheFlagsOfARun(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	synctest.Test(t, func(t *testing.T) {
		for _, path := range []string{a, b} {
			code, stdout, stderr := bench(t, t.Context(), "--json", "--model", "llama-3.2-1b", "--requests", "4", "--concurrency", "2", "--prompt-tokens", "64", "--max-tokens", "8")
			if code != 0 {
				t.Fatalf("bench exit %d: %s", code, stderr)
			}
			if err := os.WriteFile(path, []byte(stdout), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	})
	plot := filepath.Join(dir, "x.png")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--compare", a, b, "--plot", plot}, "--plot"},
		{[]string{"--plot", plot, "--compare", a, b}, "--plot"},
		{[]string{"--compare", a, b, "--rate", "3", "--gpu", "l4"}, "--gpu, --rate"},
	} {
		code, stdout, stderr := bench(t, t.Context(), tc.args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, tc.want+" would be ignored") {
			t.Errorf("bench %q = exit %d, stdout %q, stderr %q; want 2, nothing printed, %q named as ignored", tc.args, code, stdout, stderr, tc.want)
		}
	}
	if _, err := os.Stat(plot); err == nil {
		t.Errorf("bench --compare wrote %s", plot)
	}
	report := filepath.Join(dir, "compare.html")
	code, stdout, stderr := bench(t, t.Context(), "--compare", a, b, "--json", "--report", report)
	if code != 0 || !strings.Contains(stdout, `"figures"`) {
		t.Errorf("bench --compare a b --json --report = exit %d, stdout %q, stderr %q; want 0 and the figures", code, stdout, stderr)
	}
	if _, err := os.Stat(report); err != nil {
		t.Errorf("bench --compare --report: %v", err)
	}
}

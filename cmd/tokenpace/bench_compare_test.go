package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
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

// A run that measured no latency (every request failed, here with the
// server's 400) is compared with a dash, not as 0 ms: its TTFT p50 read
// "0.00" beside the other run's, a change of "-100.0%", as though it
// answered at once, and the HTML report drew its line at 0 ms. The JSON
// holds null for such a figure, and a change of 0.
func TestBenchCompareLeavesUnmeasuredLatenciesOut(t *testing.T) {
	dir := t.TempDir()
	good, failed := filepath.Join(dir, "good.json"), filepath.Join(dir, "failed.json")
	synctest.Test(t, func(t *testing.T) {
		code, stdout, stderr := bench(t, t.Context(), "--json", "--model", "llama-3.2-1b", "--requests", "4", "--concurrency", "2", "--prompt-tokens", "64", "--max-tokens", "8")
		if code != 0 {
			t.Fatalf("bench exit %d: %s", code, stderr)
		}
		if err := os.WriteFile(good, []byte(stdout), 0o600); err != nil {
			t.Fatal(err)
		}
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":{"message":"no","type":"invalid_request_error"}}`))
	}))
	t.Cleanup(srv.Close)
	code, stdout, stderr := bench(t, t.Context(), "--json", "--base-url", srv.URL+"/v1", "--model", "m", "--requests", "3")
	if code != 1 {
		t.Fatalf("bench against a refusing server: exit %d, want 1 (%s)", code, stderr)
	}
	if err := os.WriteFile(failed, []byte(stdout), 0o600); err != nil {
		t.Fatal(err)
	}

	code, stdout, stderr = bench(t, t.Context(), "--compare", good, failed)
	if code != 0 {
		t.Fatalf("bench --compare exit %d: %s", code, stderr)
	}
	for _, line := range strings.Split(stdout, "\n") {
		fields := strings.Fields(line)
		if len(fields) < 6 || !slices.Contains([]string{"TTFT", "TPOT", "ITL", "E2E"}, fields[0]) {
			continue
		}
		if b, change := fields[len(fields)-2], fields[len(fields)-1]; b != "–" || change != "–" {
			t.Errorf("bench --compare good failed: %q, want B and its change \"–\": the failed run measured no latency", line)
		}
	}
	if !strings.Contains(stdout, "TTFT p50 ms") {
		t.Errorf("bench --compare good failed = %q, want the TTFT rows", stdout)
	}

	report := filepath.Join(dir, "compare.html")
	code, stdout, stderr = bench(t, t.Context(), "--compare", good, failed, "--json", "--report", report)
	if code != 0 {
		t.Fatalf("bench --compare --json exit %d: %s", code, stderr)
	}
	var out struct {
		Figures []map[string]any `json:"figures"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	for _, f := range out.Figures {
		if name, _ := f["name"].(string); strings.HasSuffix(name, " ms") {
			if _, ok := f["a"].(float64); !ok || f["b"] != nil || f["change"] != 0.0 {
				t.Errorf("bench --compare --json %q: a %v, b %v, change %v; want a figure, null and 0", name, f["a"], f["b"], f["change"])
			}
		}
	}
	page, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(page), ">B failed.json</text>"); n != 0 {
		t.Errorf("compare.html draws %d percentile lines of the failed run, want none", n)
	}
	if n := strings.Count(string(page), ">A good.json</text>"); n != 4 {
		t.Errorf("compare.html draws %d percentile lines of the good run, want 4 (TTFT, TPOT, ITL, E2E)", n)
	}
}

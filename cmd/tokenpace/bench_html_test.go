package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
)

// reportCharts are the charts every bench --report shows.
var reportCharts = []string{"ttft", "tpot", "itl", "e2e", "latency-over-time", "throughput", "goodput"}

// benchReportFile runs bench with --report (and --json) in a bubble and
// returns the page and the JSON report.
func benchReportFile(t *testing.T, args ...string) (page string, report map[string]any) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "report.html")
	synctest.Test(t, func(t *testing.T) {
		code, stdout, stderr := bench(t, t.Context(), append([]string{"--json", "--model", "llama-3.2-1b", "--report", path}, args...)...)
		if code != 0 {
			t.Fatalf("bench %q exit = %d, want 0 (stderr %q)", args, code, stderr)
		}
		if err := json.Unmarshal([]byte(stdout), &report); err != nil {
			t.Fatal(err)
		}
	})
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), report
}

// embeddedData returns the JSON a page embeds.
func embeddedData(t *testing.T, page string) map[string]any {
	t.Helper()
	m := regexp.MustCompile(`(?s)<script type="application/json" id="bench-data">(.*?)</script>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("the page embeds no bench-data")
	}
	var data map[string]any
	if err := json.Unmarshal([]byte(m[1]), &data); err != nil {
		t.Fatalf("the page's bench-data: %v", err)
	}
	return data
}

// checkSelfContained fails when the page would fetch anything.
func checkSelfContained(t *testing.T, page string) {
	t.Helper()
	for _, bad := range []string{"<link", " src=", "@import", "url(", "https://"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page contains %q: it must need no network", bad)
		}
	}
}

func TestBenchHTMLReport(t *testing.T) {
	page, report := benchReportFile(t, "--requests", "24", "--concurrency", "4", "--prompt-tokens", "64", "--max-tokens", "16", "--slo-ttft", "50ms")
	checkSelfContained(t, page)
	for _, id := range reportCharts {
		if !strings.Contains(page, `<figure class="chart" id="chart-`+id+`"><svg`) {
			t.Errorf("the report has no %q chart", id)
		}
	}
	if n := strings.Count(page, "<tr><td>"); n < 24 {
		t.Errorf("the report has %d table rows, want at least the 24 requests", n)
	}
	data := embeddedData(t, page)
	for _, k := range []string{"completed", "goodput", "ttft_ms", "endpoint", "slo_ttft_ms"} {
		if got, want := data[k], report[k]; !jsonEqual(got, want) {
			t.Errorf("embedded %s = %v, want %v as in --json", k, got, want)
		}
	}
	checkInBrowser(t, page, len(reportCharts))
}

// TestBenchHTMLReportWithoutSLO reports a one-request run with no SLO:
// every chart is drawn, and the goodput row says that no SLO was set, as
// the settings and the printed table do, rather than that the request met
// one.
func TestBenchHTMLReportWithoutSLO(t *testing.T) {
	page, _ := benchReportFile(t, "--requests", "1", "--concurrency", "1", "--prompt-tokens", "64", "--max-tokens", "16")
	for _, id := range reportCharts {
		if !strings.Contains(page, `<figure class="chart" id="chart-`+id+`"><svg`) {
			t.Errorf("the report of one request has no %q chart", id)
		}
	}
	row := regexp.MustCompile(`<tr><td>goodput</td><td>([^<]*)</td>`).FindStringSubmatch(page)
	if row == nil || !strings.Contains(row[1], "no SLO set") || strings.Contains(row[1], "met the SLO") {
		t.Errorf("goodput row %q, want it to say that no SLO was set", row)
	}
}

func TestBenchHTMLReportOfARateSearch(t *testing.T) {
	page, report := benchReportFile(t, "--find-max-rate", "--rate", "40", "--step-requests", "100", "--step-duration", "1s", "--max-steps", "5",
		"--prompt-tokens", "64", "--max-tokens", "16", "--slo-ttft", "100ms")
	rs, _ := report["rate_search"].(map[string]any)
	if steps, _ := rs["steps"].([]any); len(steps) == 0 {
		t.Fatalf("--find-max-rate --json has no rate_search steps: %v", report["rate_search"])
	}
	if !strings.Contains(page, `id="chart-rate-search"`) || !strings.Contains(page, `<table id="rate-search">`) {
		t.Error("the report of a rate search has no rate-search chart and table")
	}
	checkInBrowser(t, page, len(reportCharts)+1)
}

func TestBenchCompare(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for i, c := range []string{"2", "8"} {
		synctest.Test(t, func(t *testing.T) {
			code, stdout, stderr := bench(t, t.Context(), "--json", "--model", "llama-3.2-1b", "--requests", "16", "--concurrency", c, "--prompt-tokens", "64", "--max-tokens", "16")
			if code != 0 {
				t.Fatalf("bench exit %d: %s", code, stderr)
			}
			files = append(files, filepath.Join(dir, []string{"a.json", "b.json"}[i]))
			if err := os.WriteFile(files[i], []byte(stdout), 0o600); err != nil {
				t.Fatal(err)
			}
		})
	}
	html := filepath.Join(dir, "compare.html")
	code, out, stderr := bench(t, t.Context(), "--compare", files[0], files[1], "--report", html)
	if code != 0 {
		t.Fatalf("bench --compare exit %d, stderr %q", code, stderr)
	}
	for _, want := range []string{"A  a.json: embedded simulator", "B  b.json:", "closed loop of 8", "TTFT p99 ms", "request throughput req/s"} {
		if !strings.Contains(out, want) {
			t.Errorf("bench --compare printed no %q:\n%s", want, out)
		}
	}
	// Counts of requests are whole numbers: "16.00 completed" read as a
	// measured figure.
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) >= 3 && (f[0] == "completed" || f[0] == "failed") && (strings.Contains(f[1], ".") || strings.Contains(f[2], ".")) {
			t.Errorf("bench --compare printed a count with decimals: %q", line)
		}
	}
	b, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	checkSelfContained(t, string(b))
	if figs, _ := embeddedData(t, string(b))["figures"].([]any); len(figs) < 10 {
		t.Errorf("the comparison page embeds %d figures, want every one compared", len(figs))
	}
	checkInBrowser(t, string(b), 4)
	if code, _, stderr := bench(t, t.Context(), "--compare", files[0]); code != 2 || !strings.Contains(stderr, "two bench --json reports") {
		t.Errorf("bench --compare with one file = exit %d, stderr %q; want 2 and what it takes", code, stderr)
	}
	if code, _, stderr := bench(t, t.Context(), "--compare", html, files[0]); code != 1 || !strings.Contains(stderr, "not a bench --json report") {
		t.Errorf("bench --compare of an HTML file = exit %d, stderr %q; want 1 and why", code, stderr)
	}
	// A run stopped early: its figures cover part of it, which the
	// comparison printed as if the run were whole.
	raw, err := os.ReadFile(files[1])
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.json")
	if err := os.WriteFile(cut, []byte(strings.Replace(string(raw), `"interrupted": false`, `"interrupted": true`, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, stderr := bench(t, t.Context(), "--compare", files[0], cut); code != 0 || !strings.Contains(stderr, "B (cut.json) was interrupted") || !strings.Contains(out, "cut.json (interrupted)") {
		t.Errorf("bench --compare with an interrupted run = exit %d, stdout %q, stderr %q; want it said", code, out, stderr)
	}
}

// jsonEqual compares two decoded JSON values.
func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// checkInBrowser loads page in headless Chromium, in a subtest skipped
// when Chromium is not installed: the page must log nothing to the console
// (no error, no failed fetch) and its script must count charts SVGs drawn.
func checkInBrowser(t *testing.T, page string, charts int) {
	t.Helper()
	t.Run("headless chromium", func(t *testing.T) { loadInBrowser(t, page, charts) })
}

func loadInBrowser(t *testing.T, page string, charts int) {
	bin := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			bin = p
			break
		}
	}
	if bin == "" {
		t.Skip("no chromium on PATH: apt-get install -y chromium to load the page in a browser")
	}
	path := filepath.Join(t.TempDir(), "page.html")
	if err := os.WriteFile(path, []byte(page), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0",
		"--user-data-dir="+t.TempDir(), "--dump-dom", "file://"+path)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, stderr.String())
	}
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(line, ":CONSOLE") {
			t.Errorf("the page logged to the console: %s", line)
		}
	}
	if want := `data-charts="` + strconv.Itoa(charts) + `"`; !strings.Contains(stdout.String(), want) {
		t.Errorf("in the browser the page's body has no %s: its script did not run, or charts are missing", want)
	}
}

// TestBenchFiguresNoRequestHad runs one-token answers, which have no TPOT
// or ITL: the printed table and the page's latency table show a dash for
// those figures, not 0.0 ms beside a TTFT of tens of ms.
func TestBenchFiguresNoRequestHad(t *testing.T) {
	args := []string{"--requests", "2", "--concurrency", "1", "--prompt-tokens", "64", "--max-tokens", "1"}
	synctest.Test(t, func(t *testing.T) {
		code, stdout, stderr := bench(t, t.Context(), append([]string{"--model", "llama-3.2-1b"}, args...)...)
		if code != 0 {
			t.Fatalf("bench %q exit = %d (stderr %q)", args, code, stderr)
		}
		for _, name := range []string{"TPOT", "ITL"} {
			row := regexp.MustCompile(`(?m)^ *` + name + ` .*$`).FindString(stdout)
			if f := strings.Fields(row); len(f) != 8 || f[1] != "0" || strings.Count(row, "–") != 6 {
				t.Errorf("%s row %q, want a count of 0 and a dash for each figure", name, row)
			}
		}
	})
	page, _ := benchReportFile(t, args...)
	if !strings.Contains(page, "<tr><td>TPOT</td><td>0</td><td>–</td><td>–</td>") {
		t.Errorf("the page's latency table shows no dashes for TPOT, which no request had")
	}
}

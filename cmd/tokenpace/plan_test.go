package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// planOut is the part of plan's JSON report the tests read.
type planOut struct {
	Search struct {
		Considered, Simulated, Pruned, Skipped int
		Runs                                   int `json:"simulation_runs"`
	} `json:"search"`
	Samples    int        `json:"samples"`
	Headroom   float64    `json:"headroom"`
	Best       *planCand  `json:"best"`
	Rejected   *planCand  `json:"cheapest_rejected"`
	Candidates []planCand `json:"candidates"`
}

type planCand struct {
	GPU          string   `json:"gpu"`
	TP           *int     `json:"tp"`
	Replicas     *int     `json:"replicas"`
	Precision    string   `json:"precision"`
	MaxBatch     *int     `json:"max_batch"`
	Routing      string   `json:"routing"`
	GPUsTotal    *int     `json:"gpus_total"`
	CostPerHour  *float64 `json:"cost_per_hour"`
	CostPerM     *float64 `json:"cost_per_million_output_tokens"`
	CostToFinish float64  `json:"cost_to_finish"`
	TTFTP99      *float64 `json:"ttft_p99_ms"`
	TPOTP99      *float64 `json:"tpot_p99_ms"`
	Goodput      *float64 `json:"goodput"`
	FinishS      float64  `json:"finish_s"`
	Outcome      string   `json:"outcome"`
	Misses       []string `json:"misses"`
	Reason       string   `json:"reason"`
	SimArgs      []string `json:"sim_args"`
}

func planCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runPlan(t.Context(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func planJSONOut(t *testing.T, args ...string) planOut {
	t.Helper()
	code, out, stderr := planCmd(t, append([]string{"--json"}, args...)...)
	if code != 0 {
		t.Fatalf("plan %q exit = %d, want 0 (stderr %q)", args, code, stderr)
	}
	var p planOut
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("plan %q: decoding the JSON report: %v\n%s", args, err, out)
	}
	if p.Best == nil {
		t.Fatalf("plan %q: no best candidate\n%s", args, out)
	}
	return p
}

// smallSearch keeps the test searches quick.
var smallSearch = []string{"--gpu", "l4,a10g,l40s,a100-80gb,h100-sxm", "--tp", "1,2", "--max-batch", "16,64,256", "--max-gpus", "16"}

func TestPlanJSONContract(t *testing.T) {
	p := planJSONOut(t, append([]string{"--model", "llama-3.1-8b", "--rate", "10", "--prompt-tokens", "800", "--output-tokens", "100",
		"--slo-ttft-p99", "300ms", "--slo-tpot-p99", "40ms", "--requests", "300"}, smallSearch...)...)
	b := p.Best
	for name, v := range map[string]any{"tp": b.TP, "replicas": b.Replicas, "max_batch": b.MaxBatch, "gpus_total": b.GPUsTotal,
		"cost_per_hour": b.CostPerHour, "cost_per_million_output_tokens": b.CostPerM, "ttft_p99_ms": b.TTFTP99, "tpot_p99_ms": b.TPOTP99, "goodput": b.Goodput} {
		switch x := v.(type) {
		case *int:
			if x == nil || *x <= 0 {
				t.Errorf("best.%s = %v, want a positive number", name, x)
			}
		case *float64:
			if x == nil || *x <= 0 {
				t.Errorf("best.%s = %v, want a positive number", name, x)
			}
		}
	}
	if b.GPU == "" || b.Precision == "" || b.Routing == "" || len(b.SimArgs) == 0 {
		t.Errorf("best = %+v, want gpu, precision, routing and sim_args", b)
	}
	if *b.GPUsTotal != *b.TP**b.Replicas {
		t.Errorf("best gpus_total = %d, want tp × replicas = %d", *b.GPUsTotal, *b.TP**b.Replicas)
	}
	if *b.TTFTP99 > 300 || *b.TPOTP99 > 40 || *b.Goodput < 0.99 {
		t.Errorf("best TTFT p99 %v ms, TPOT p99 %v ms, goodput %v: want within 300 ms, 40 ms, ≥ 0.99", *b.TTFTP99, *b.TPOTP99, *b.Goodput)
	}
	if p.Search.Considered != p.Search.Simulated+p.Search.Pruned+p.Search.Skipped || p.Search.Considered < 1000 {
		t.Errorf("search = %+v, want considered ≥ 1000 = simulated + pruned + skipped", p.Search)
	}
	if len(p.Candidates) == 0 {
		t.Fatal("no candidates in the JSON report")
	}
	for _, c := range p.Candidates {
		if c.Outcome == "missed" && len(c.Misses) == 0 || c.Outcome == "pruned" && c.Reason == "" {
			t.Errorf("candidate %+v: a loser must say why it lost", c)
		}
		if c.CostPerHour != nil && *c.CostPerHour < *b.CostPerHour && c.Outcome == "met" {
			t.Errorf("candidate %+v met the SLO for less than the best's $%v/h", c, *b.CostPerHour)
		}
	}
}

func TestPlanTextSaysWhyLosersLost(t *testing.T) {
	code, out, stderr := planCmd(t, append([]string{"--model", "llama-3.1-8b", "--rate", "10", "--prompt-tokens", "800", "--output-tokens", "100",
		"--slo-ttft-p99", "300ms", "--slo-tpot-p99", "40ms", "--requests", "300", "--top", "3"}, smallSearch...)...)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	for _, want := range []string{"best ", "serve it  tokenpace sim --model llama-3.1-8b", "--replicas", "configurations in", "pruned by roofline bounds",
		"best: meets the SLO at the lowest cost", "misses ", "ms > 300 ms (+"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan text lacks %q:\n%s", want, out)
		}
	}
}

func TestPlanBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--rate", "10"}, // no SLO
		{"--slo-ttft-p99", "1s"},
		{"--rate", "-1", "--slo-ttft-p99", "1s"},
		{"--rate", "10", "--slo-ttft-p99", "1s", "--model", "gpt-5"},
		{"--rate", "10", "--slo-ttft-p99", "1s", "--gpu", "tpu"},
		{"--rate", "10", "--slo-ttft-p99", "1s", "--gpu", "m4-max"}, // no price
		{"--rate", "10", "--slo-ttft-p99", "1s", "--price", "h100"},
		{"--rate", "10", "--slo-ttft-p99", "1s", "--price", "h100=-2"},
		{"--rate", "10", "--slo-ttft-p99", "1s", "--tp", "0"},
		{"--rate", "10", "--slo-ttft-p99", "1s", "--routing", "random"},
		{"--rate", "10", "--slo-ttft-p99", "1s", "--goodput", "1.5"},
		{"--batch-requests", "100"},
		{"--batch-requests", "100", "--deadline", "1h", "--rate", "3"},
		{"--rate", "10", "--slo-ttft-p99", "1s", "--workload", "/nonexistent"},
		{"--rate", "10", "--slo-ttft-p99", "1s", "extra"},
		{"--rate", "10", "--slo-ttft-p99", "1s", "--mbu", "1.5"},
		{"--rate", "10", "--slo-ttft-p99", "1s", "--requests", "999999999"},
		{"--rate", "10", "--slo-ttft-p99", "1s", "--headroom", "-0.1"},
		{"--rate", "10", "--slo-ttft-p99", "1s", "--burstiness", "-1"},                                 // ran as Poisson
		{"--rate", "10", "--slo-ttft-p99", "1s", "--burstiness", "NaN"},                                // ran as Poisson
		{"--rate", "10", "--slo-ttft-p99", "1s", "--prefix-tokens", "2000", "--prompt-tokens", "1000"}, // every request a whole cache hit
		{"--rate", "10", "--slo-ttft-p99", "1s", "--headroom", "NaN"},
		{"--rate", "10", "--slo-ttft-p99", "1s", "--samples", "0"},
		{"--rate", "10", "--slo-ttft-p99", "1s", "--samples", "21"},
		{"--rate", "10", "--slo-ttft-p99", "1s", "--samples", "6", "--requests", "200000"},
	} {
		if code, _, stderr := planCmd(t, args...); code != 2 || !strings.HasPrefix(stderr, "tokenpace plan") && !strings.Contains(stderr, "flag") {
			t.Errorf("plan %q exit = %d, stderr %q; want 2 and a message", args, code, stderr)
		}
	}
}

// A calibrated deployment's utilisation reaches the simulation and the
// sim_args, so the served deployment is the one planned.
func TestPlanPassesCalibration(t *testing.T) {
	args := append([]string{"--model", "llama-3.1-8b", "--rate", "5", "--prompt-tokens", "500", "--output-tokens", "100",
		"--slo-ttft-p99", "500ms", "--slo-tpot-p99", "30ms", "--requests", "300"}, smallSearch...)
	p := planJSONOut(t, args...)
	q := planJSONOut(t, append(args, "--mbu", "0.4", "--mfu", "0.3")...)
	if !strings.Contains(strings.Join(q.Best.SimArgs, " "), "--mbu 0.4 --mfu 0.3") {
		t.Errorf("sim_args = %q, want --mbu 0.4 --mfu 0.3", q.Best.SimArgs)
	}
	if *q.Best.TPOTP99 <= *p.Best.TPOTP99 && *q.Best.CostPerHour <= *p.Best.CostPerHour {
		t.Errorf("at half the bandwidth utilisation the pick is no slower (TPOT p99 %v vs %v ms) and no dearer ($%v vs $%v/h)",
			*q.Best.TPOTP99, *p.Best.TPOTP99, *q.Best.CostPerHour, *p.Best.CostPerHour)
	}
}

func TestPlanPriceOverrideChangesThePick(t *testing.T) {
	args := append([]string{"--model", "llama-3.1-8b", "--rate", "5", "--prompt-tokens", "500", "--output-tokens", "100",
		"--slo-ttft-p99", "500ms", "--requests", "300"}, smallSearch...)
	p := planJSONOut(t, args...)
	// Make the pick's GPU very dear: the pick moves to another GPU.
	q := planJSONOut(t, append(args, "--price", p.Best.GPU+"=1000")...)
	if q.Best.GPU == p.Best.GPU {
		t.Errorf("with %s at $1000/h the pick is still on it: %+v", p.Best.GPU, q.Best)
	}
}

func TestPlanWorkloadFiles(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "trace.csv")
	var b strings.Builder
	b.WriteString("arrival_s,prompt_tokens,output_tokens,prefix_id\n")
	for i := range 200 {
		b.WriteString(strings.Join([]string{ftoa(float64(i) * 0.1), "600", "50", "sys"}, ",") + "\n")
	}
	if err := os.WriteFile(trace, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(dir, "bench.json")
	if err := os.WriteFile(report, []byte(`{"planned_requests": 300, "rate": 8, "prompt_tokens": 700, "max_tokens": 80, "completed": 300, "output_tokens": 21000}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		file, load string
		extra      []string
	}{
		{trace, "trace " + trace + ": 200 requests (csv, over 19.9s at 10/s); judged on 1 arrival draw at 10% above the offered rate", nil},
		{report, "300 requests at 8/s, 700 prompt and 70 output tokens; judged on 3 arrival draws (the worst counts) at 10% above the offered rate", nil},
		// --requests sizes the sample over the report's count (it was
		// dropped for the report's).
		{report, "120 requests at 8/s, 700 prompt and 70 output tokens", []string{"--requests", "120"}},
	} {
		code, out, stderr := planCmd(t, append(append([]string{"--workload", tc.file, "--slo-ttft-p99", "400ms"}, tc.extra...), smallSearch...)...)
		if code != 0 || !strings.Contains(out, tc.load) {
			t.Errorf("plan --workload %s exit %d, stderr %q; want 0 and a load line with %q:\n%s", tc.file, code, stderr, tc.load, out)
		}
	}
	// A trace with shared prefixes brings the affinity router into the
	// search by default.
	code, out, _ := planCmd(t, append([]string{"--workload", trace, "--slo-ttft-p99", "400ms", "--json"}, smallSearch...)...)
	if code != 0 || !strings.Contains(out, `"routing": "affinity"`) {
		t.Errorf("plan of a trace with prefixes: exit %d, affinity never considered:\n%.2000s", code, out)
	}
}

// By default an online pick is judged on 3 arrival draws at 10% above
// the offered rate; a voice bot at the edge of one replica's capacity
// then needs a dearer deployment than one draw at the offered rate says.
func TestPlanJudgesOnSeveralDrawsWithHeadroom(t *testing.T) {
	args := []string{"--model", "llama-3.1-8b", "--rate", "22", "--prompt-tokens", "1000", "--output-tokens", "60", "--requests", "800",
		"--slo-ttft-p99", "180ms", "--slo-tpot-p99", "50ms", "--gpu", "mi300x", "--tp", "1", "--precision", "fp8", "--max-batch", "16,32,64", "--max-gpus", "8"}
	p := planJSONOut(t, args...)
	if p.Samples != 3 || p.Headroom != 0.1 {
		t.Errorf("plan defaults: samples %d, headroom %v; want 3, 0.1", p.Samples, p.Headroom)
	}
	q := planJSONOut(t, append(args, "--samples", "1", "--headroom", "0")...)
	if q.Samples != 1 || q.Headroom != 0 {
		t.Errorf("plan --samples 1 --headroom 0: samples %d, headroom %v; want 1, 0", q.Samples, q.Headroom)
	}
	if *p.Best.CostPerHour <= *q.Best.CostPerHour {
		t.Errorf("robust pick %v at $%v/h; want dearer than the one-draw pick %v at $%v/h", p.Best.SimArgs, *p.Best.CostPerHour, q.Best.SimArgs, *q.Best.CostPerHour)
	}
	if p.Search.Runs <= p.Search.Simulated {
		t.Errorf("search = %+v: want more runs than simulated candidates (every draw of a candidate that meets the SLO)", p.Search)
	}
	// Constant arrivals of fixed lengths are the same whatever the seed.
	c := planJSONOut(t, append(args, "--constant")...)
	if c.Samples != 1 || c.Search.Runs != c.Search.Simulated {
		t.Errorf("plan --constant: samples %d, search %+v; want 1 draw, one run per simulated candidate", c.Samples, c.Search)
	}
}

func TestPlanPlot(t *testing.T) {
	path := filepath.Join(t.TempDir(), "front.svg")
	code, _, stderr := planCmd(t, append([]string{"--model", "llama-3.1-8b", "--rate", "10", "--prompt-tokens", "800", "--output-tokens", "100",
		"--slo-ttft-p99", "300ms", "--requests", "300", "--plot", path}, smallSearch...)...)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	b, err := os.ReadFile(path)
	if err != nil || !bytes.Contains(b, []byte("<svg")) || !bytes.Contains(b, []byte("Pareto front")) {
		t.Errorf("--plot wrote %d bytes (err %v), want an SVG with a Pareto front", len(b), err)
	}
}

func TestParetoFront(t *testing.T) {
	front := paretoFront([]paretoPoint{{3, 10, true}, {1, 50, false}, {2, 60, false}, {2, 20, true}, {5, 10, true}, {4, 5, true}})
	want := []paretoPoint{{1, 50, false}, {2, 20, true}, {3, 10, true}, {4, 5, true}}
	if len(front) != len(want) {
		t.Fatalf("paretoFront = %v, want %v", front, want)
	}
	for i := range want {
		if front[i] != want[i] {
			t.Errorf("paretoFront[%d] = %v, want %v", i, front[i], want[i])
		}
	}
}

func TestSimServesACluster(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // listen, say what is served, stop
	var out, errb bytes.Buffer
	code := runSim(ctx, []string{"--addr", "127.0.0.1:0", "--model", "llama-3.2-1b", "--replicas", "3", "--routing", "affinity"}, &out, &errb)
	if code != 0 || !strings.Contains(errb.String(), "3 replicas of llama-3.2-1b") || !strings.Contains(errb.String(), "affinity routing") {
		t.Errorf("sim --replicas 3 exit %d, stderr %q; want 0 and a cluster of 3 with affinity routing", code, errb.String())
	}
	for _, args := range [][]string{{"--replicas", "0"}, {"--routing", "random"}, {"--replicas", "2", "--ttft", "1ms"}} {
		errb.Reset()
		if code := runSim(ctx, append([]string{"--addr", "127.0.0.1:0"}, args...), &out, &errb); code != 2 {
			t.Errorf("sim %q exit = %d (stderr %q), want 2", args, code, errb.String())
		}
	}
}

func ftoa(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// plan --top lists a configuration that meets the SLO once, at its fewest
// replicas, not again with more of them (here, before: 3 and 4 × l40s fp8
// at max batch 64).
func TestPlanTopListsEachConfigurationOnce(t *testing.T) {
	code, out, stderr := planCmd(t, append([]string{"--model", "llama-3.1-8b", "--rate", "60", "--prompt-tokens", "800", "--output-tokens", "100",
		"--slo-ttft-p99", "1s", "--requests", "300", "--top", "8"}, smallSearch...)...)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	row := regexp.MustCompile(`^\d+\s+\d+ × (.+?)\s{2,}.*meets the SLO`)
	seen := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if prev, ok := seen[m[1]]; ok {
			t.Errorf("configuration listed twice:\n%s\n%s", prev, line)
		}
		seen[m[1]] = line
	}
	if len(seen) < 2 {
		t.Errorf("fewer than 2 configurations met the SLO, the test proves nothing:\n%s", out)
	}
}

// A flag given where it does nothing is refused by name, as bench
// refuses its own: the trace's flags without a workload file, a batch
// job's --deadline for an online load (with it an online search judged
// every candidate against the deadline, ran for over ten minutes over
// the whole space and picked none), an online load's draws for a batch
// job, and a load's shape for a trace file, whose arrivals and lengths
// are the load.
func TestPlanRefusesFlagsThatDoNotApply(t *testing.T) {
	trace := filepath.Join("..", "..", "simulate", "trace", "testdata", "azure_conv_sample.csv")
	online := []string{"--model", "llama-3.1-8b", "--rate", "5", "--slo-ttft-p99", "1s"}
	report := filepath.Join(t.TempDir(), "bench.json")
	if err := os.WriteFile(report, []byte(`{"planned_requests": 300, "rate": 8, "prompt_tokens": 700, "max_tokens": 80}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append(online, "--speedup", "3"), "--speedup needs --workload"},
		{append(online, "--window", "1m", "--trace-format", "azure"), "--window, --trace-format need --workload"},
		{append(online, "--deadline", "1s"), "--deadline is a batch job's"},
		{[]string{"--model", "llama-3.1-8b", "--batch-requests", "100", "--deadline", "8h", "--samples", "5"}, "--samples would be ignored"},
		{[]string{"--model", "llama-3.1-8b", "--workload", trace, "--slo-ttft-p99", "1s", "--burstiness", "3", "--prompt-tokens", "500"}, "--burstiness, --prompt-tokens would be ignored"},
		// A bench report's lengths are the load: the flags' were dropped
		// without a word.
		{[]string{"--model", "llama-3.1-8b", "--workload", report, "--slo-ttft-p99", "1s", "--prompt-tokens", "500", "--output-tokens", "40"}, "is a bench report, whose prompt and mean output lengths are the load: --prompt-tokens, --output-tokens would be ignored"},
	} {
		args := append(tc.args, smallSearch...)
		code, stdout, stderr := planCmd(t, args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("plan %q = exit %d, stdout %q, stderr %q; want 2, nothing printed, %q", args, code, stdout, stderr, tc.want)
		}
	}
	// What applies is still taken: the trace's own flags with a trace.
	code, out, stderr := planCmd(t, append([]string{"--model", "llama-3.1-8b", "--workload", trace, "--slo-ttft-p99", "1s", "--speedup", "2", "--top", "1"}, smallSearch...)...)
	if code != 0 || !strings.Contains(out, "sped up 2×") {
		t.Errorf("plan --workload TRACE --speedup 2 = exit %d, stderr %q, output\n%s\nwant 0 and the trace sped up 2×", code, stderr, out)
	}
}

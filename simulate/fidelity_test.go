package simulate_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
)

type fidelityRow struct {
	Name         string          `json:"name"`
	Source       string          `json:"source"`
	GPU          string          `json:"gpu"`
	GPUs         int             `json:"gpus"`
	Model        string          `json:"model"`
	CustomModel  *simulate.Model `json:"custom_model"`
	Precision    string          `json:"precision"`
	Runtime      string          `json:"runtime"`
	PromptTokens int             `json:"prompt_tokens"`
	OutputTokens int             `json:"output_tokens"`
	Concurrency  int             `json:"concurrency"`
	Metric       string          `json:"metric"`
	Measured     float64         `json:"measured"`
}

func loadFidelity(t *testing.T) []fidelityRow {
	t.Helper()
	b, err := os.ReadFile("testdata/fidelity.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct{ Rows []fidelityRow }
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f.Rows
}

// predictRow runs Predict with the catalog defaults for the row's runtime
// class; nothing is tuned per row.
func predictRow(t *testing.T, r fidelityRow) float64 {
	t.Helper()
	var d simulate.Deployment
	var err error
	if d.GPU, err = simulate.LookupGPU(r.GPU); err != nil {
		t.Fatal(err)
	}
	if r.CustomModel != nil {
		d.Model = *r.CustomModel
	} else if d.Model, err = simulate.LookupModel(r.Model); err != nil {
		t.Fatal(err)
	}
	if d.Precision, err = simulate.LookupPrecision(r.Precision); err != nil {
		t.Fatal(err)
	}
	d.GPUs = r.GPUs
	switch r.Runtime {
	case "llama.cpp":
		d.Runtime = simulate.RuntimeLlamaCpp
	case "vllm":
		d.Runtime = simulate.RuntimeVLLM
	}
	p, err := simulate.Predict(d, simulate.Scenario{PromptTokens: r.PromptTokens, OutputTokens: r.OutputTokens, Concurrency: r.Concurrency})
	if err != nil {
		t.Fatalf("%s: %v", r.Name, err)
	}
	switch r.Metric {
	case "decode_tps":
		return p.TPS
	case "ttft_ms":
		return float64(p.TTFT) / float64(time.Millisecond)
	case "e2e_ms":
		return float64(p.E2E) / float64(time.Millisecond)
	case "aggregate_tps":
		return p.AggregateTPS
	case "prefill_tps":
		return float64(r.PromptTokens) / p.Prefill.Seconds()
	}
	t.Fatalf("%s: unknown metric %q", r.Name, r.Metric)
	return 0
}

// TestFidelity compares Predict with published measurements and reports the
// error table (go test -run Fidelity -v). The aim: median absolute error at
// most 15%, none worse than 35%.
func TestFidelity(t *testing.T) {
	rows := loadFidelity(t)
	if len(rows) < 10 {
		t.Fatalf("%d published measurements, want at least 10", len(rows))
	}
	var errs []float64
	var table strings.Builder
	fmt.Fprintf(&table, "\n%-100s %-13s %10s %10s %8s\n", "measurement", "metric", "measured", "predicted", "error")
	for _, r := range rows {
		got := predictRow(t, r)
		e := (got - r.Measured) / r.Measured
		errs = append(errs, math.Abs(e))
		fmt.Fprintf(&table, "%-100s %-13s %10.2f %10.2f %+7.1f%%\n", r.Name, r.Metric, r.Measured, got, 100*e)
		if math.Abs(e) > 0.35 {
			t.Errorf("%s: predicted %s %.2f, measured %.2f: error %+.1f%%, want within 35%%", r.Name, r.Metric, got, r.Measured, 100*e)
		}
	}
	slices.Sort(errs)
	median := errs[len(errs)/2]
	if len(errs)%2 == 0 {
		median = (errs[len(errs)/2-1] + errs[len(errs)/2]) / 2
	}
	fmt.Fprintf(&table, "median absolute error %.1f%%, worst %.1f%% over %d measurements", 100*median, 100*errs[len(errs)-1], len(errs))
	t.Log(table.String())
	if median > 0.15 {
		t.Errorf("median absolute error = %.1f%%, want at most 15%%", 100*median)
	}
}

package simulate

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
)

// fitClassesFlag prints class parameters refitted on every row
// (go test -run TestFidelity -fit-classes -v) to paste into classes.go.
var fitClassesFlag = flag.Bool("fit-classes", false, "refit the class parameters on all of testdata/fidelity.json and print them")

type fidelityRow struct {
	Name         string  `json:"name"`
	Source       string  `json:"source"`
	Engine       string  `json:"engine"`
	Setup        string  `json:"setup"`
	GPU          string  `json:"gpu"`
	GPUs         int     `json:"gpus"`
	Model        string  `json:"model"`
	CustomModel  *Model  `json:"custom_model"`
	Precision    string  `json:"precision"`
	Bits         float64 `json:"bits"`
	KVBits       float64 `json:"kv_bits"`
	Runtime      string  `json:"runtime"`
	PromptTokens int     `json:"prompt_tokens"`
	OutputTokens int     `json:"output_tokens"`
	Concurrency  int     `json:"concurrency"`
	Metric       string  `json:"metric"`
	Measured     float64 `json:"measured"`
}

// group is the row's source, the unit left out in cross-validation: the
// URL without the note on which table.
func (r fidelityRow) group() string { return strings.SplitN(r.Source, " (", 2)[0] }

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

// sample turns a row into a deployment with no efficiency overrides and
// the observation; nothing is tuned per row.
func (r fidelityRow) sample(t *testing.T) classSample {
	t.Helper()
	var d Deployment
	var err error
	if d.GPU, err = LookupGPU(r.GPU); err != nil {
		t.Fatal(err)
	}
	if r.CustomModel != nil {
		d.Model = *r.CustomModel
	} else if d.Model, err = LookupModel(r.Model); err != nil {
		t.Fatal(err)
	}
	if r.Bits > 0 {
		d.Precision, err = CustomPrecision(r.Bits)
	} else {
		d.Precision, err = LookupPrecision(r.Precision)
	}
	if err != nil {
		t.Fatal(err)
	}
	d.GPUs, d.KVBits = r.GPUs, r.KVBits
	switch r.Runtime {
	case "llama.cpp":
		d.Runtime = RuntimeLlamaCpp
	case "vllm":
		d.Runtime = RuntimeVLLM
	case "eager":
		d.Runtime = RuntimeEager
	}
	return classSample{d: d, obs: Observation{
		Scenario: Scenario{PromptTokens: r.PromptTokens, OutputTokens: r.OutputTokens, Concurrency: r.Concurrency},
		Metric:   Metric(r.Metric), Value: r.Measured,
	}}
}

// predictWith runs Predict for s under class parameters p.
func predictWith(t *testing.T, name string, s classSample, p classParams) float64 {
	t.Helper()
	d, err := s.d.resolvedWith(p)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	got, err := s.obs.Figure(d)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return got
}

// errorSummary is the median and 90th-percentile absolute error and the
// share of rows within 30 %.
type errorSummary struct{ median, p90, within30 float64 }

func summarize(errs []float64) errorSummary {
	a := make([]float64, len(errs))
	var in int
	for i, e := range errs {
		a[i] = math.Abs(e)
		if a[i] <= 0.30 {
			in++
		}
	}
	slices.Sort(a)
	q := func(f float64) float64 {
		x := f * float64(len(a)-1)
		i := int(x)
		if i+1 >= len(a) {
			return a[len(a)-1]
		}
		return a[i] + (x-float64(i))*(a[i+1]-a[i])
	}
	return errorSummary{median: q(0.5), p90: q(0.9), within30: float64(in) / float64(len(a))}
}

func (s errorSummary) String() string {
	return fmt.Sprintf("median %.1f%%, p90 %.1f%%, %.0f%% of rows within 30%%", 100*s.median, 100*s.p90, 100*s.within30)
}

// crossValidate refits the class parameters with each group (by key) left
// out and returns each row's error on the fit that did not see it.
func crossValidate(t *testing.T, rows []fidelityRow, samples []classSample, key func(fidelityRow) string) []float64 {
	t.Helper()
	errs := make([]float64, len(rows))
	var groups []string
	for _, r := range rows {
		if !slices.Contains(groups, key(r)) {
			groups = append(groups, key(r))
		}
	}
	for _, g := range groups {
		var train []classSample
		for i, r := range rows {
			if key(r) != g {
				train = append(train, samples[i])
			}
		}
		p := fitClasses(train, priorParams, fitLambda)
		for i, r := range rows {
			if key(r) == g {
				got := predictWith(t, r.Name, samples[i], p)
				errs[i] = (got - r.Measured) / r.Measured
			}
		}
	}
	return errs
}

// fitLambda weighs the pull of each parameter toward its prior against the
// squared log errors of the rows.
const fitLambda = 0.05

// TestFidelity compares Predict with published measurements and reports
// the error table (go test -run TestFidelity -v). The headline is the
// leave-one-source-out error: the class parameters are refitted without the
// rows of each source in turn, and those rows are predicted by the fit that
// never saw them. The in-sample error of the committed parameters stands
// beside it.
func TestFidelity(t *testing.T) {
	if testing.Short() {
		t.Skip("refits the latency model once per source")
	}
	rows := loadFidelity(t)
	if len(rows) < 50 {
		t.Fatalf("%d published measurements, want at least 50", len(rows))
	}
	samples := make([]classSample, len(rows))
	for i, r := range rows {
		samples[i] = r.sample(t)
	}
	if *fitClassesFlag {
		p := fitClasses(samples, priorParams, fitLambda)
		t.Logf("fitted class parameters: %+v", p)
	}
	in := make([]float64, len(rows))
	for i, r := range rows {
		got := predictWith(t, r.Name, samples[i], defaultParams)
		in[i] = (got - r.Measured) / r.Measured
	}
	cv := crossValidate(t, rows, samples, fidelityRow.group)
	byEngine := crossValidate(t, rows, samples, func(r fidelityRow) string { return r.Engine })

	var table strings.Builder
	fmt.Fprintf(&table, "\n%-92s %-13s %10s %9s %9s %9s\n", "measurement", "metric", "measured", "in-sample", "LOSO-CV", "LOEO-CV")
	for i, r := range rows {
		fmt.Fprintf(&table, "%-92s %-13s %10.2f %+8.1f%% %+8.1f%% %+8.1f%%\n", r.Name, r.Metric, r.Measured, 100*in[i], 100*cv[i], 100*byEngine[i])
	}
	sIn, sCV, sEng := summarize(in), summarize(cv), summarize(byEngine)
	fmt.Fprintf(&table, "leave-one-source-out: %v\nleave-one-engine-out: %v\nin-sample:            %v\nover %d measurements\n", sCV, sEng, sIn, len(rows))
	t.Log(table.String())
	checkErrorBands(t, samples, cv)
	for _, c := range []struct {
		name string
		s    errorSummary
	}{{"leave-one-source-out", sCV}, {"in-sample", sIn}} {
		if c.s.median > fidelityMedianAim || c.s.within30 < fidelityWithin30Aim {
			t.Errorf("%s error: %v, want median at most %.0f%% and at least %.0f%% of rows within 30%%",
				c.name, c.s, 100*fidelityMedianAim, 100*fidelityWithin30Aim)
		}
	}
}

// The bars the fidelity test holds the model to (see BENCHMARKS.md).
const (
	fidelityMedianAim   = 0.10
	fidelityWithin30Aim = 0.85
)

// checkErrorBands recomputes the per-class error bands from the
// cross-validated errors and fails when errorband.go's differ.
func checkErrorBands(t *testing.T, samples []classSample, cv []float64) {
	t.Helper()
	var errs [4][2][]float64
	for i, s := range samples {
		rc, kind := runtimeClass(s.d.withIdentity().Runtime), bandKind(s.obs.Metric)
		errs[rc][kind] = append(errs[rc][kind], cv[i])
		errs[3][kind] = append(errs[3][kind], cv[i])
	}
	var lit strings.Builder
	stale := false
	for rc := range errs {
		lit.WriteString("\t{")
		for kind := range errs[rc] {
			want := errorBands[rc][kind]
			got := ErrorBand{Class: want.Class, Rows: len(errs[rc][kind])}
			if got.Rows > 0 {
				s := summarize(errs[rc][kind])
				got.Median, got.P90 = math.Round(1000*s.median)/1000, math.Round(1000*s.p90)/1000
			}
			if got.Rows != want.Rows || math.Abs(got.Median-want.Median) > 0.005 || math.Abs(got.P90-want.P90) > 0.005 {
				stale = true
			}
			if kind > 0 {
				lit.WriteString(", ")
			}
			fmt.Fprintf(&lit, "{%q, %d, %v, %v}", got.Class, got.Rows, got.Median, got.P90)
		}
		lit.WriteString("},\n")
	}
	if stale {
		t.Errorf("errorband.go is stale; the cross-validated bands are:\n%s", lit.String())
	}
}

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/tokenpace/tokenpace/metrics"
)

// savedRun is a bench --json report read back.
type savedRun struct {
	name string
	snap metrics.Snapshot
	run  benchRun
}

// readSavedRun reads a bench --json report.
func readSavedRun(path string) (*savedRun, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s := &savedRun{name: filepath.Base(path)}
	var figs savedFigures
	if err := json.Unmarshal(b, &figs); err != nil {
		return nil, fmt.Errorf("%s: not a bench --json report: %s", path, jsonErrorText(err))
	}
	if err := figs.check(); err != nil {
		return nil, fmt.Errorf("%s: not a figure bench measures: %v", path, err)
	}
	if err := json.Unmarshal(b, &s.snap); err != nil {
		return nil, fmt.Errorf("%s: not a bench --json report: %s", path, jsonErrorText(err))
	}
	if err := json.Unmarshal(b, &s.run); err != nil || s.run.Endpoint == "" {
		return nil, fmt.Errorf("%s: not a bench --json report (it has no endpoint)", path)
	}
	return s, nil
}

// savedFigures are the figures of a bench --json report that --compare
// prints, as written: counts, rates and latencies in ms.
type savedFigures struct {
	Requests          float64            `json:"requests"`
	Completed         float64            `json:"completed"`
	Failed            float64            `json:"failed"`
	Good              float64            `json:"good"`
	RequestThroughput float64            `json:"request_throughput"`
	OutputThroughput  float64            `json:"output_throughput"`
	Goodput           float64            `json:"goodput"`
	TTFT              map[string]float64 `json:"ttft_ms"`
	TPOT              map[string]float64 `json:"tpot_ms"`
	ITL               map[string]float64 `json:"itl_ms"`
	E2E               map[string]float64 `json:"e2e_ms"`
}

// maxSavedMs is the longest latency a report can hold: 1e9 s, past which
// a duration in ms no longer reads back as one.
const maxSavedMs = 1e12

// check reports the first figure no run measures: a count or rate below
// zero, a latency below zero or past maxSavedMs.
func (f savedFigures) check() error {
	for _, v := range []struct {
		name string
		v    float64
	}{{"requests", f.Requests}, {"completed", f.Completed}, {"failed", f.Failed}, {"good", f.Good},
		{"request_throughput", f.RequestThroughput}, {"output_throughput", f.OutputThroughput}, {"goodput", f.Goodput}} {
		if v.v < 0 {
			return fmt.Errorf("%s is %v, want at least 0", v.name, v.v)
		}
	}
	for _, d := range []struct {
		name string
		m    map[string]float64
	}{{"ttft_ms", f.TTFT}, {"tpot_ms", f.TPOT}, {"itl_ms", f.ITL}, {"e2e_ms", f.E2E}} {
		for _, k := range slices.Sorted(maps.Keys(d.m)) {
			if v := d.m[k]; !(v >= 0 && v <= maxSavedMs) {
				return fmt.Errorf("%s.%s is %v, want 0 to %g ms", d.name, k, v, maxSavedMs)
			}
		}
	}
	return nil
}

// jsonErrorText says what in a JSON document is not what a report holds,
// in the document's terms rather than Go's types.
func jsonErrorText(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field == "" {
			return fmt.Sprintf("it is a JSON %s, want an object", te.Value)
		}
		return fmt.Sprintf("%s is a JSON %s, want a %s", te.Field, te.Value, jsonKind(te.Type))
	}
	return err.Error()
}

// jsonKind names the JSON kind that decodes into t.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Map, reflect.Struct:
		return "object"
	case reflect.Slice, reflect.Array:
		return "array"
	}
	return "number"
}

// compareRow is one figure of two runs.
type compareRow struct {
	Name string `json:"name"`
	// A and B are the runs' figures; nil (JSON null) for a latency the
	// run measured none of: no request completed, or none had a second
	// token for TPOT and ITL. Such a figure is not 0 ms.
	A *float64 `json:"a"`
	B *float64 `json:"b"`
	// Change is (B − A) / A; 0 when A is 0 or either figure is nil.
	Change float64 `json:"change"`
	count  bool    // A and B count requests: printed without decimals
}

// values formats a row's two figures: counts as whole numbers, the rest
// with two decimals, and a dash for a figure the run did not measure.
func (r compareRow) values() (a, b string) {
	format := func(v *float64) string {
		switch {
		case v == nil:
			return "–"
		case r.count:
			return strconv.FormatFloat(*v, 'f', 0, 64)
		}
		return strconv.FormatFloat(*v, 'f', 2, 64)
	}
	return format(r.A), format(r.B)
}

// changed reports whether the row's change can be figured: both figures
// measured, and A not 0.
func (r compareRow) changed() bool {
	return r.A != nil && r.B != nil && *r.A != 0
}

// compareRows lists the figures two runs are compared on.
func compareRows(a, b *savedRun) []compareRow {
	var rows []compareRow
	row := func(name string, x, y *float64) {
		r := compareRow{Name: name, A: x, B: y}
		if r.changed() {
			r.Change = (*y - *x) / *x
		}
		rows = append(rows, r)
	}
	add := func(name string, x, y float64) { row(name, &x, &y) }
	count := func(name string, x, y int64) {
		add(name, float64(x), float64(y))
		rows[len(rows)-1].count = true
	}
	// quantile is a latency of d in ms, nil when d holds no value.
	quantile := func(d metrics.Dist, q time.Duration) *float64 {
		if d.Count == 0 {
			return nil
		}
		v := msf(q)
		return &v
	}
	count("completed", a.snap.Completed, b.snap.Completed)
	count("failed", a.snap.Failed, b.snap.Failed)
	add("request throughput req/s", a.snap.RequestThroughput, b.snap.RequestThroughput)
	add("output throughput tokens/s", a.snap.OutputThroughput, b.snap.OutputThroughput)
	add("goodput req/s", a.snap.Goodput, b.snap.Goodput)
	for _, m := range []struct {
		name string
		x, y metrics.Dist
	}{{"TTFT", a.snap.TTFT, b.snap.TTFT}, {"TPOT", a.snap.TPOT, b.snap.TPOT}, {"ITL", a.snap.ITL, b.snap.ITL}, {"E2E", a.snap.E2E, b.snap.E2E}} {
		for _, q := range []struct {
			name string
			x, y time.Duration
		}{{"p50", m.x.P50, m.y.P50}, {"p90", m.x.P90, m.y.P90}, {"p99", m.x.P99, m.y.P99}} {
			row(m.name+" "+q.name+" ms", quantile(m.x, q.x), quantile(m.y, q.y))
		}
	}
	if a.run.RateSearch != nil && b.run.RateSearch != nil {
		add("max rate under the SLO req/s", a.run.RateSearch.MaxRate, b.run.RateSearch.MaxRate)
	}
	return rows
}

// runCompare prints two bench --json reports side by side, and with
// --report writes them as an HTML page. It returns the exit code.
func runCompare(f *benchFlags, stdout, stderr io.Writer) int {
	var runs [2]*savedRun
	for i, path := range f.compare {
		r, err := readSavedRun(path)
		if err != nil {
			return benchFail(stderr, 1, "--compare: %v", err)
		}
		runs[i] = r
		if r.run.Interrupted {
			// Its figures cover the part of the run measured before it
			// was stopped: not what the other run's cover.
			fmt.Fprintf(stderr, "tokenpace bench: WARNING: %c (%s) was interrupted: its figures cover %v of its %d planned requests\n",
				'A'+i, r.name, r.snap.Requests, r.run.Planned)
		}
	}
	rows := compareRows(runs[0], runs[1])
	if f.asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(map[string]any{"a": f.compare[0], "b": f.compare[1], "figures": rows}); err != nil {
			return benchFail(stderr, 1, "%v", err)
		}
	} else {
		writeCompareText(stdout, runs, rows)
	}
	if f.report != "" {
		if err := writeHTMLFile(f.report, comparePage(runs, rows)); err != nil {
			return benchFail(stderr, 1, "report: %v", err)
		}
		if !f.asJSON {
			fmt.Fprintf(stdout, "report written to %s\n", f.report)
		}
	}
	return 0
}

// writeCompareText writes the runs' settings and figures side by side.
func writeCompareText(w io.Writer, runs [2]*savedRun, rows []compareRow) {
	for i, r := range runs {
		note := ""
		if r.run.Interrupted {
			note = " (interrupted)"
		}
		fmt.Fprintf(w, "%c  %s%s: %s, model %s, %s\n", 'A'+i, r.name, note, r.run.Endpoint, r.run.Model, savedLoad(r))
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "figure\tA\tB\tchange\t")
	for _, r := range rows {
		a, b := r.values()
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\n", r.Name, a, b, changeText(r))
	}
	_ = tw.Flush()
}

// changeText formats a row's change.
func changeText(r compareRow) string {
	if !r.changed() {
		return "–"
	}
	return fmt.Sprintf("%+.1f%%", 100*r.Change)
}

// savedLoad describes a saved run's load.
func savedLoad(r *savedRun) string {
	if r.run.Load != "" {
		return r.run.Load
	}
	if r.run.Rate > 0 {
		return fmt.Sprintf("%s at %g/s", count(r.run.Planned, "request"), r.run.Rate)
	}
	return fmt.Sprintf("%s, closed loop of %d", count(r.run.Planned, "request"), r.run.Concurrency)
}

// comparePage is two runs side by side as an HTML page.
func comparePage(runs [2]*savedRun, rows []compareRow) *htmlPage {
	p := &htmlPage{Title: "tokenpace bench: " + runs[0].name + " against " + runs[1].name,
		Data: map[string]any{"a": runs[0].name, "b": runs[1].name, "figures": rows}}
	for i, r := range runs {
		p.Settings = append(p.Settings, [2]string{string(rune('A' + i)), fmt.Sprintf("%s: %s, model %s, %s", r.name, r.run.Endpoint, r.run.Model, savedLoad(r))})
	}
	t := htmlTable{ID: "compare", Caption: "Figures side by side", Head: []string{"figure", "A", "B", "change"}}
	for _, r := range rows {
		a, b := r.values()
		t.Rows = append(t.Rows, []string{r.Name, a, b, changeText(r)})
	}
	p.Tables = []htmlTable{t}
	for _, m := range []struct {
		id   string
		a, b metrics.Dist
	}{{"TTFT", runs[0].snap.TTFT, runs[1].snap.TTFT}, {"TPOT", runs[0].snap.TPOT, runs[1].snap.TPOT},
		{"ITL", runs[0].snap.ITL, runs[1].snap.ITL}, {"E2E", runs[0].snap.E2E, runs[1].snap.E2E}} {
		c := svgChart{id: "compare-" + m.id, title: m.id + " percentiles", xlabel: "percentile", ylabel: "ms"}
		for _, s := range []struct {
			name, color string
			d           metrics.Dist
		}{{"A " + runs[0].name, svgBlue, m.a}, {"B " + runs[1].name, svgOrange, m.b}} {
			if s.d.Count == 0 {
				continue // no value measured: no line at 0 ms
			}
			c.series = append(c.series, svgSeries{name: s.name, color: s.color,
				pts: [][2]float64{{50, msf(s.d.P50)}, {90, msf(s.d.P90)}, {95, msf(s.d.P95)}, {99, msf(s.d.P99)}}})
		}
		p.Charts = append(p.Charts, chart(c))
	}
	return p
}

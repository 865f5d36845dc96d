package main

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/tokenpace/tokenpace/metrics"
)

// benchReport is what bench prints.
type benchReport struct {
	f    *benchFlags
	what string
	mdl  string
	snap metrics.Snapshot
	res  *loadResult
}

func newBenchReport(f *benchFlags, t *benchTarget, res *loadResult) *benchReport {
	return &benchReport{f: f, what: t.what, mdl: t.model, snap: res.snap, res: res}
}

// benchRun describes the run in the JSON report; its field names are a
// contract other tools parse.
type benchRun struct {
	Endpoint     string  `json:"endpoint"`
	Model        string  `json:"model"`
	Planned      int     `json:"planned_requests"`
	Concurrency  int     `json:"concurrency"`
	Rate         float64 `json:"rate"`
	PromptTokens int     `json:"prompt_tokens"`
	MaxTokens    int     `json:"max_tokens"`
	Warmup       int     `json:"warmup"`
	SLOTTFTMs    float64 `json:"slo_ttft_ms"`
	SLOTPOTMs    float64 `json:"slo_tpot_ms"`
	Late         int     `json:"late_requests"`
	MaxLateMs    float64 `json:"max_lateness_ms"`
	Interrupted  bool    `json:"interrupted"`
	Abandoned    int     `json:"abandoned"`
}

// writeJSON writes one JSON object: the Recorder's snapshot (requests,
// completed, failed, duration_s, request_throughput, output_throughput,
// goodput, ttft_ms, tpot_ms, itl_ms, e2e_ms, errors, ...) and the run's
// description (benchRun) side by side.
func (r *benchReport) writeJSON(w io.Writer) error {
	snap := r.snap
	snap.Targets = nil // one series: the totals say it all
	obj := map[string]any{}
	for _, v := range []any{snap, benchRun{
		Endpoint: r.what, Model: r.mdl, Planned: r.f.requests, Concurrency: r.f.concurrency, Rate: r.f.rate,
		PromptTokens: r.f.prompt, MaxTokens: r.f.maxTokens, Warmup: r.f.warmup,
		SLOTTFTMs: msf(r.f.sloTTFT), SLOTPOTMs: msf(r.f.sloTPOT),
		Late: r.res.late, MaxLateMs: msf(r.res.maxLate),
		Interrupted: r.res.interrupted, Abandoned: r.res.abandoned,
	}} {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(b, &obj); err != nil {
			return err
		}
	}
	if _, ok := obj["errors"]; !ok {
		obj["errors"] = map[string]int64{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(obj)
}

// writeText writes the human-readable report.
func (r *benchReport) writeText(w io.Writer) error {
	ew := &firstErr{w: w}
	f := r.f
	fmt.Fprintf(ew, "endpoint  %s\nmodel     %s\n", r.what, r.mdl)
	load := fmt.Sprintf("closed loop, %d clients", f.concurrency)
	if f.rate > 0 {
		load = fmt.Sprintf("Poisson arrivals at %g/s", f.rate)
		if f.concurrency > 0 {
			load += fmt.Sprintf(", at most %d in flight", f.concurrency)
		}
	}
	fmt.Fprintf(ew, "load      %d requests (%s), %d prompt tokens, max_tokens %d", f.requests, load, f.prompt, f.maxTokens)
	if f.warmup > 0 {
		fmt.Fprintf(ew, ", after %d warm-up requests", f.warmup)
	}
	fmt.Fprintln(ew)
	if f.sloTTFT > 0 || f.sloTPOT > 0 {
		fmt.Fprintf(ew, "SLO       %s (goodput counts the requests that met it)\n", sloText(f.sloTTFT, f.sloTPOT))
	}
	if r.res.interrupted {
		fmt.Fprintf(ew, "interrupted: %d of %d requests measured, %d in flight abandoned\n",
			r.snap.Requests, f.requests, r.res.abandoned)
	}
	fmt.Fprintln(ew)
	_ = r.snap.WriteTable(ew)
	if f.rate > 0 {
		fmt.Fprintf(ew, "schedule: %d of %d requests went out more than %v late (max %v); their latency counts from the scheduled time\n",
			r.res.late, r.snap.Requests, lateAfter, r.res.maxLate.Round(10*time.Microsecond))
	}
	return ew.err
}

func sloText(ttft, tpot time.Duration) string {
	s := ""
	if ttft > 0 {
		s = "TTFT ≤ " + ttft.String()
	}
	if tpot > 0 {
		if s != "" {
			s += ", "
		}
		s += "TPOT ≤ " + tpot.String()
	}
	return s
}

// firstErr keeps the first write error and drops later writes.
type firstErr struct {
	w   io.Writer
	err error
}

func (e *firstErr) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

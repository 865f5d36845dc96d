package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
)

// predictJSON is the --json output; its field names are a contract other
// tools parse.
type predictJSON struct {
	Model           string  `json:"model"`
	GPU             string  `json:"gpu"`
	GPUs            int     `json:"gpus"`
	Precision       string  `json:"precision"`
	PromptTokens    int     `json:"prompt_tokens"`
	CachedTokens    int     `json:"cached_tokens"`
	OutputTokens    int     `json:"output_tokens"`
	Concurrency     int     `json:"concurrency"`
	RTTMs           float64 `json:"rtt_ms"`
	QueueMs         float64 `json:"queue_ms"`
	PrefillMs       float64 `json:"prefill_ms"`
	TTFTMs          float64 `json:"ttft_ms"`
	DecodeStepMs    float64 `json:"decode_step_ms"`
	ITLMs           float64 `json:"itl_ms"`
	TPOTMs          float64 `json:"tpot_ms"`
	TPS             float64 `json:"tps"`
	AggregateTPS    float64 `json:"aggregate_tps"`
	E2EMs           float64 `json:"e2e_ms"`
	Bound           string  `json:"bound"`
	MBU             float64 `json:"mbu"`
	MFU             float64 `json:"mfu"`
	WeightsGB       float64 `json:"weights_gb"`
	KVBytesPerToken float64 `json:"kv_bytes_per_token"`
	// KVBytesHeld is the memory a token's KV cache takes over all the
	// GPUs: KVBytesPerToken times the GPUs holding each KV head when they
	// outnumber the KV heads (tensor parallel replicates them).
	KVBytesHeld float64  `json:"kv_bytes_held_per_token"`
	KVCapacity  int      `json:"kv_capacity_tokens"`
	Arithmetic  []string `json:"arithmetic"`
	// ErrorBand is the cross-validated error of the deployment's class:
	// "first_token" applies to ttft_ms and prefill_ms, "decode" to
	// decode_step_ms, itl_ms, tpot_ms, tps, aggregate_tps and e2e_ms.
	ErrorBand map[string]errorBandJSON `json:"error_band"`
	// HeldOutBand is the model's error on published measurements that no
	// fit saw, mostly of other engine builds than the fitted ones: how far
	// off a prediction may be when the server's build differs.
	HeldOutBand map[string]errorBandJSON `json:"held_out_band"`
	// Given lists the hardware and efficiency flags the user set; Defaulted
	// the figures that took a default, each with where it comes from.
	Given     []string `json:"given"`
	Defaulted []string `json:"defaulted"`
}

// errorBandJSON is one simulate.ErrorBand.
type errorBandJSON struct {
	Class   string  `json:"class"`
	Rows    int     `json:"published_measurements"`
	Sources int     `json:"sources"`
	Median  float64 `json:"median_abs_error"`
	P90     float64 `json:"p90_abs_error"`
}

func bandJSON(b simulate.ErrorBand) errorBandJSON {
	return errorBandJSON{Class: b.Class, Rows: b.Rows, Sources: b.Sources, Median: b.Median, P90: b.P90}
}

// fmtBand is the band beside a figure: "±9% median, ±22% p90 (vllm decode,
// 35 published measurements from 9 sources, cross-validated)".
func fmtBand(b simulate.ErrorBand) string {
	return fmt.Sprintf("±%.0f%% median, ±%.0f%% p90 (%s, %d published measurements from %d sources, cross-validated)", 100*b.Median, 100*b.P90, b.Class, b.Rows, b.Sources)
}

func runPredict(args []string, stdout, stderr io.Writer) int {
	f := newPredictFlags(stderr)
	if code, ok := parseFlags(f.fs, args, stderr); !ok {
		return code
	}
	if err := f.check(); err != nil {
		fmt.Fprintf(stderr, "tokenpace predict: %v\n", err)
		return 2
	}
	d, err := f.hw.deployment()
	if err != nil {
		fmt.Fprintf(stderr, "tokenpace predict: %v\n", err)
		return 2
	}
	p, err := simulate.Predict(d, simulate.Scenario{PromptTokens: f.prompt, CachedTokens: f.cached, OutputTokens: f.output, Concurrency: f.conc, Requests: f.requests})
	if err != nil {
		fmt.Fprintf(stderr, "tokenpace predict: %v\n", err)
		if _, ok := errors.AsType[*simulate.InvalidError](err); ok {
			return 2 // a load the flags describe and no run can be
		}
		return 1
	}
	// The first token needs the request to reach the server and the token
	// to come back: one round trip. Later tokens stream behind it.
	p.TTFT += f.rtt
	p.E2E += f.rtt
	if f.asJSON {
		if err := f.printJSON(stdout, p); err != nil {
			fmt.Fprintf(stderr, "tokenpace predict: %v\n", err)
			return 1
		}
		return 0
	}
	f.printText(stdout, p)
	return 0
}

// predictFlags are the flags of tokenpace predict.
type predictFlags struct {
	fs                                     *flag.FlagSet
	hw                                     *deploymentFlags
	prompt, cached, output, conc, requests int
	rtt                                    time.Duration
	asJSON                                 bool
}

// newPredictFlags declares the flags of tokenpace predict on a new flag
// set that writes to stderr.
func newPredictFlags(stderr io.Writer) *predictFlags {
	fs := flag.NewFlagSet("tokenpace predict", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &predictFlags{fs: fs, hw: addDeploymentFlags(fs)}
	fs.IntVar(&f.prompt, "prompt-tokens", 1000, "prompt tokens per request")
	fs.IntVar(&f.cached, "cached-tokens", 0, "leading prompt tokens already in the prefix cache")
	fs.IntVar(&f.output, "output-tokens", 256, "output tokens per request")
	fs.IntVar(&f.conc, "concurrency", 1, "concurrent requests")
	fs.IntVar(&f.requests, "requests", 0, "requests in all, sent by --concurrency clients in a closed loop as bench does (default: one wave of --concurrency)")
	fs.DurationVar(&f.rtt, "rtt", 0, "network round trip added to TTFT and E2E (0: server-side figures)")
	fs.BoolVar(&f.asJSON, "json", false, "print one JSON object instead of text")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tokenpace predict [flags]\n\n"+
			"Predicts queue, prefill, TTFT, decode step, TPS and E2E from model and\n"+
			"hardware figures.\n\nFlags:")
		fs.PrintDefaults()
	}
	return f
}

// check refuses arguments and numbers out of range.
func (f *predictFlags) check() error {
	if f.fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", f.fs.Arg(0))
	}
	for _, v := range []struct {
		name string
		v    int
		min  int
	}{{"prompt-tokens", f.prompt, 1}, {"cached-tokens", f.cached, 0}, {"output-tokens", f.output, 1}, {"concurrency", f.conc, 1}, {"requests", f.requests, 0}} {
		if v.v < v.min {
			return fmt.Errorf("--%s must be at least %d, got %d", v.name, v.min, v.v)
		}
	}
	if f.cached >= f.prompt {
		return fmt.Errorf("--cached-tokens (%d) must be less than --prompt-tokens (%d)", f.cached, f.prompt)
	}
	if f.rtt < 0 {
		return fmt.Errorf("--rtt must not be negative, got %v", f.rtt)
	}
	return nil
}

// printJSON prints prediction p as one JSON object.
func (f *predictFlags) printJSON(w io.Writer, p simulate.Prediction) error {
	first, decode := simulate.ErrorBands(p.Deployment)
	heldFirst, heldDecode := simulate.HeldOutBands()
	given, defaulted := f.hw.provenance(p.Deployment)
	d := p.Deployment
	out := predictJSON{
		Model: d.Model.Name, GPU: d.GPU.Name, GPUs: d.GPUs, Precision: d.Precision.Name,
		PromptTokens: f.prompt, CachedTokens: f.cached, OutputTokens: f.output, Concurrency: f.conc,
		RTTMs: msf(f.rtt), QueueMs: msf(p.Queue), PrefillMs: msf(p.Prefill), TTFTMs: msf(p.TTFT),
		DecodeStepMs: msf(p.DecodeStep.Time), ITLMs: msf(p.ITL), TPOTMs: msf(p.TPOT),
		TPS: p.TPS, AggregateTPS: p.AggregateTPS, E2EMs: msf(p.E2E), Bound: string(p.Bound),
		MBU: d.MBU, MFU: d.MFU, WeightsGB: d.Model.WeightBytes(d.Precision) / 1e9,
		KVBytesPerToken: d.Model.KVBytesPerToken(d.KVBits), KVBytesHeld: d.KVBytesHeldPerToken(), KVCapacity: d.KVCapacityTokens,
		Arithmetic:  p.Arithmetic,
		ErrorBand:   map[string]errorBandJSON{"first_token": bandJSON(first), "decode": bandJSON(decode)},
		HeldOutBand: map[string]errorBandJSON{"first_token": bandJSON(heldFirst), "decode": bandJSON(heldDecode)},
		Given:       given, Defaulted: defaulted,
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// printText prints prediction p as a table with its error bands, what was
// given and defaulted, and the arithmetic.
func (f *predictFlags) printText(w io.Writer, p simulate.Prediction) {
	first, decode := simulate.ErrorBands(p.Deployment)
	given, defaulted := f.hw.provenance(p.Deployment)
	fmt.Fprintf(w, "%s on %d × %s (%s), %d × (%d prompt [%d cached], %d output) tokens\n\n",
		p.Deployment.Model.Name, p.Deployment.GPUs, p.Deployment.GPU.Name, p.Deployment.Precision.Name, f.conc, f.prompt, f.cached, f.output)
	fb, db := fmtBand(first), fmtBand(decode)
	rows := []struct {
		name, v, band string
	}{
		{"queue", fmtMs(p.Queue), ""},
		{"prefill", fmtMs(p.Prefill), fb},
		{"rtt", fmtMs(f.rtt), ""},
		{"TTFT", fmtMs(p.TTFT), fb},
		{"decode step", fmtMs(p.DecodeStep.Time) + " (" + string(p.Bound) + "-bound)", db},
		{"ITL", fmtMs(p.ITL), db},
		{"TPOT", fmtMs(p.TPOT), db},
		{"TPS", fmt.Sprintf("%.1f tokens/s per stream", p.TPS), db},
		{"aggregate TPS", fmt.Sprintf("%.1f tokens/s", p.AggregateTPS), db},
		{"E2E", fmtMs(p.E2E), db},
	}
	for _, r := range rows {
		if r.band == "" {
			fmt.Fprintf(w, "  %-14s %s\n", r.name, r.v)
			continue
		}
		fmt.Fprintf(w, "  %-14s %-34s %s\n", r.name, r.v, r.band)
	}
	hf, hd := simulate.HeldOutBands()
	fmt.Fprintf(w, "  on measurements no fit saw (other engine builds): first token ±%.0f%% median, ±%.0f%% p90 (%d from %d sources); decode ±%.0f%%, ±%.0f%% (%d from %d)\n",
		100*hf.Median, 100*hf.P90, hf.Rows, hf.Sources, 100*hd.Median, 100*hd.P90, hd.Rows, hd.Sources)
	for _, part := range []struct {
		head  string
		lines []string
	}{{"\ngiven:", given}, {"defaulted (measure these to tighten the prediction):", defaulted}, {"\nhow:", p.Arithmetic}} {
		if len(part.lines) == 0 {
			continue // a deployment file gives every figure: no heading over nothing
		}
		fmt.Fprintln(w, part.head)
		for _, l := range part.lines {
			fmt.Fprintln(w, "  "+l)
		}
	}
}

func msf(d time.Duration) float64 { return float64(d) / 1e6 }

func fmtMs(d time.Duration) string { return fmt.Sprintf("%.2f ms", msf(d)) }

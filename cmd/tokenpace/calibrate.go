package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
	"github.com/tokenpace/tokenpace/simulate/plan"
)

// calibrationJSON records in a deployment file how calibrate fitted it.
type calibrationJSON struct {
	From         []string       `json:"from"`
	Fitted       []string       `json:"fitted"`
	Conditioning float64        `json:"conditioning"`
	Residuals    []residualJSON `json:"residuals"`
}

// residualJSON is one observation and the fitted deployment's figure.
type residualJSON struct {
	Metric       string  `json:"metric"`
	PromptTokens int     `json:"prompt_tokens"`
	OutputTokens int     `json:"output_tokens"`
	Concurrency  int     `json:"concurrency"`
	Requests     int     `json:"requests"`
	Measured     float64 `json:"measured"`
	Fitted       float64 `json:"fitted"`
	Error        float64 `json:"error"`
}

// benchRunJSON is the part of a bench --json report calibrate reads.
type benchRunJSON struct {
	// Endpoint and Model say what answered the run.
	Endpoint     string             `json:"endpoint"`
	Model        string             `json:"model"`
	Concurrency  int                `json:"concurrency"`
	Planned      int                `json:"planned_requests"`
	Rate         float64            `json:"rate"`
	PromptTokens int                `json:"prompt_tokens"`
	MaxTokens    int                `json:"max_tokens"`
	Completed    int                `json:"completed"`
	OutputTokens float64            `json:"output_tokens"`
	TTFT         map[string]float64 `json:"ttft_ms"`
	TPOT         map[string]float64 `json:"tpot_ms"`
	// Load describes a replayed trace or sessions, whose prompts are
	// not prompt_tokens; RateSearch marks a rate search's report.
	Load       string          `json:"load"`
	RateSearch json.RawMessage `json:"rate_search"`
}

// check reports the first figure of r that no bench run writes: a count
// below zero, a prompt longer than bench sends, a latency below zero or
// past what a report holds.
func (r *benchRunJSON) check() error {
	for _, v := range []struct {
		name string
		v    float64
	}{{"concurrency", float64(r.Concurrency)}, {"planned_requests", float64(r.Planned)}, {"max_tokens", float64(r.MaxTokens)},
		{"completed", float64(r.Completed)}, {"output_tokens", r.OutputTokens}} {
		if !(v.v >= 0) {
			return fmt.Errorf("%s is %v, want at least 0", v.name, v.v)
		}
	}
	if r.PromptTokens > maxPromptTokens {
		return fmt.Errorf("prompt_tokens is %d, want at most %d", r.PromptTokens, maxPromptTokens)
	}
	for _, d := range []struct {
		name string
		m    map[string]float64
	}{{"ttft_ms", r.TTFT}, {"tpot_ms", r.TPOT}} {
		if v, ok := d.m["mean"]; ok && !(v >= 0 && v <= maxSavedMs) {
			return fmt.Errorf("%s.mean is %v, want 0 to %g ms", d.name, v, maxSavedMs)
		}
	}
	return nil
}

// maxCalibrateTokens bounds the output tokens of one simulated run.
const maxCalibrateTokens = 200_000

// maxBenchReport bounds a bench report read (they are a few KB).
const maxBenchReport = 16 << 20

// observationsFrom reads a bench --json report and returns its mean TTFT
// and TPOT as observations of its closed loop: planned_requests sent by
// concurrency clients, and what answered the run.
func observationsFrom(path string) ([]simulate.Observation, runOrigin, error) {
	r, err := readBenchRun(path)
	if err != nil {
		return nil, runOrigin{}, err
	}
	obs, err := r.observations(path)
	return obs, runOrigin{path: path, model: r.Model, endpoint: r.Endpoint}, err
}

// readBenchRun reads and checks the bench --json report at path.
func readBenchRun(path string) (*benchRunJSON, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--from: %w", err)
	}
	if len(b) > maxBenchReport {
		return nil, fmt.Errorf("--from %s: %d bytes, more than a bench report holds", path, len(b))
	}
	var r benchRunJSON
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("--from %s: not a tokenpace bench --json report: %s", path, jsonErrorText(err))
	}
	switch {
	case r.Load != "":
		return nil, fmt.Errorf("--from %s: a run of %s; calibrate reads closed-loop runs of --prompt-tokens prompts", path, r.Load)
	case r.PromptTokens <= 0 || r.Planned <= 0:
		return nil, fmt.Errorf("--from %s: not a tokenpace bench --json report (no prompt_tokens or planned_requests)", path)
	case len(r.RateSearch) > 0 && string(r.RateSearch) != "null":
		return nil, fmt.Errorf("--from %s: a rate search (--find-max-rate); calibrate reads closed-loop runs, whose load is their concurrency", path)
	case r.Rate > 0:
		return nil, fmt.Errorf("--from %s: an open-loop (--rate) run; calibrate reads closed-loop runs, whose load is their concurrency", path)
	case r.Completed <= 0:
		return nil, fmt.Errorf("--from %s: no request completed", path)
	}
	if err := r.check(); err != nil {
		return nil, fmt.Errorf("--from %s: not a figure bench measures: %v", path, err)
	}
	return &r, nil
}

// observations returns r's mean TTFT and TPOT as observations of its
// closed loop; path names it in errors.
func (r *benchRunJSON) observations(path string) ([]simulate.Observation, error) {
	conc := r.Concurrency
	if conc <= 0 || conc > r.Planned {
		conc = r.Planned
	}
	out := int(math.Round(r.OutputTokens / float64(r.Completed)))
	if out <= 0 {
		out = r.MaxTokens
	}
	// A fit simulates each run a few hundred times: bound the tokens of one
	// simulation, keeping at least two waves of the closed loop (the mean of
	// a long closed loop is its steady state, which a few waves reach).
	requests := r.Planned
	if requests*out > maxCalibrateTokens {
		requests = min(requests, max(2*conc, maxCalibrateTokens/out))
	}
	s := simulate.Scenario{PromptTokens: r.PromptTokens, OutputTokens: out, Concurrency: conc, Requests: requests}
	var obs []simulate.Observation
	if v := r.TTFT["mean"]; v > 0 {
		obs = append(obs, simulate.Observation{Scenario: s, Metric: simulate.MetricTTFT, Value: v})
	}
	if v := r.TPOT["mean"]; v > 0 && out > 1 {
		obs = append(obs, simulate.Observation{Scenario: s, Metric: simulate.MetricTPOT, Value: v})
	}
	if len(obs) == 0 {
		return nil, fmt.Errorf("--from %s: no mean TTFT or TPOT in the report", path)
	}
	return obs, nil
}

// stringsFlag collects a repeated string flag.
type stringsFlag []string

func (s *stringsFlag) String() string     { return strings.Join(*s, ",") }
func (s *stringsFlag) Set(v string) error { *s = append(*s, v); return nil }

// runCalibrate fits a deployment to bench reports (--from) or to runs it
// designs and sends (--base-url) until ctx ends, and returns the exit
// code: 130 when ctx ended first, with no deployment file written.
func runCalibrate(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	f := newCalibrateFlags(stderr)
	if code, ok := parseFlags(f.fs, args, stderr); !ok {
		return code
	}
	if err := f.check(); err != nil {
		fmt.Fprintf(stderr, "tokenpace calibrate: %v\n", err)
		return 2
	}
	d, err := f.hw.deployment()
	if err != nil {
		fmt.Fprintf(stderr, "tokenpace calibrate: %v\n", err)
		return 2
	}
	// Fit from the class defaults, not from an earlier fit.
	d.MBU, d.MFU, d.StepOverhead = 0, 0, 0
	obs, check, code, err := f.observations(ctx, d, stderr)
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "tokenpace calibrate: interrupted; no deployment file written")
		return 130
	}
	if err != nil {
		fmt.Fprintf(stderr, "tokenpace calibrate: %v\n", err)
		return code
	}
	c, err := plan.Calibrate(d, obs)
	if err != nil {
		fmt.Fprintf(stderr, "tokenpace calibrate: %v\n", err)
		return 1
	}
	if err := f.write(c); err != nil {
		fmt.Fprintf(stderr, "tokenpace calibrate: %v\n", err)
		return 1
	}
	if err := f.print(stdout, c, len(obs), check); err != nil {
		fmt.Fprintf(stderr, "tokenpace calibrate: %v\n", err)
		return 1
	}
	return 0
}

// calibrateFlags are the flags of tokenpace calibrate.
type calibrateFlags struct {
	fs                       *flag.FlagSet
	hw                       *deploymentFlags
	from                     stringsFlag
	outPath, baseURL, keyEnv string
	served                   string
	timeout                  time.Duration
}

// newCalibrateFlags declares the flags of tokenpace calibrate on a new
// flag set that writes to stderr.
func newCalibrateFlags(stderr io.Writer) *calibrateFlags {
	fs := flag.NewFlagSet("tokenpace calibrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &calibrateFlags{fs: fs, hw: addDeploymentFlags(fs)}
	fs.Var(&f.from, "from", "a tokenpace bench --json report of the endpoint (repeat: runs at different prompt lengths and concurrencies)")
	fs.StringVar(&f.outPath, "out", "", "deployment file to write (for --deployment of predict, sim and bench)")
	fs.StringVar(&f.baseURL, "base-url", "", "endpoint to calibrate by running designed loads against it, e.g. http://localhost:8000/v1 (instead of --from)")
	fs.StringVar(&f.keyEnv, "api-key-env", "OPENAI_API_KEY", "environment variable holding the endpoint's API key (--base-url)")
	fs.DurationVar(&f.timeout, "timeout", 5*time.Minute, "longest one request of a designed run may take (--base-url), at most 1h")
	fs.StringVar(&f.served, "served-model", "", "model name the designed runs request from --base-url (default: --model; with --params-b, the first model the server lists)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tokenpace calibrate --base-url URL --model M [flags] [--out d.json]\n\n"+
			"   or: tokenpace calibrate --model M --gpu G [flags] --from a.json\n"+
			"           --from b.json --out d.json\n\n"+
			"Fits the deployment's bandwidth share (MBU), tensor share (MFU) and fixed\n"+
			"time per step. With --base-url it designs and runs the loads that identify\n"+
			"them (one stream; many streams of long contexts sharing a cached prefix; a\n"+
			"long prefill) and two held-out loads that check the fit; with --from it\n"+
			"reads bench --json runs. It prints each constant with its uncertainty\n"+
			"band, names the constants the runs leave confounded, and writes a\n"+
			"deployment file. [flags] are the model and hardware flags below.\n\nFlags:")
		fs.PrintDefaults()
	}
	return f
}

// check refuses flags that cannot work together.
func (f *calibrateFlags) check() error {
	switch {
	case f.fs.NArg() > 0:
		return fmt.Errorf("unexpected argument %q", f.fs.Arg(0))
	case len(f.from) == 0 && f.baseURL == "":
		return errors.New("--base-url (run designed loads) or at least one --from bench report is needed")
	case len(f.from) > 0 && f.baseURL != "":
		return errors.New("--base-url and --from exclude each other")
	case f.outPath == "" && f.baseURL == "":
		return errors.New("--out is needed")
	case f.timeout <= 0:
		return fmt.Errorf("--timeout must be positive, got %v", f.timeout)
	case f.timeout > maxLatency:
		return fmt.Errorf("--timeout %v: want at most %v, the longest latency the figures record", f.timeout, maxLatency)
	}
	if err := checkOutputDir("out", f.outPath); err != nil {
		return err
	}
	for _, name := range []string{"mbu", "mfu", "step-overhead"} {
		if f.hw.set()[name] {
			return fmt.Errorf("--%s is what calibrate fits; leave it out", name)
		}
	}
	return nil
}

// observations returns the figures to fit d to, and those held out to
// check the fit: from the designed runs against --base-url, or from the
// --from reports. On an error, code is the exit code.
func (f *calibrateFlags) observations(ctx context.Context, d simulate.Deployment, stderr io.Writer) (obs, check []simulate.Observation, code int, err error) {
	if f.baseURL == "" {
		var runs []runOrigin
		for _, path := range f.from {
			o, run, err := observationsFrom(path)
			if err != nil {
				return nil, nil, 1, err
			}
			obs = append(obs, o...)
			runs = append(runs, run)
		}
		if err := checkOneModel(d, runs, stderr); err != nil {
			return nil, nil, 1, err
		}
		return obs, nil, 0, nil
	}
	ep, err := dialCalibrate(f.baseURL, f.keyEnv)
	if err != nil {
		return nil, nil, 2, err
	}
	defer ep.close()
	shown, hidden := printableURL(f.baseURL)
	model := cmp.Or(f.served, f.hw.model)
	if model == "" && ep.firstModel != nil {
		// A custom model: ask the server what it serves.
		if model, err = ep.firstModel(ctx); err != nil {
			if notAPI := (*notAPIError)(nil); errors.As(err, &notAPI) {
				// A wrong URL: a model's name would not mend it.
				return nil, nil, 1, fmt.Errorf("%s answered, but not as an OpenAI API: %v", shown, notAPI)
			}
			return nil, nil, 1, fmt.Errorf("%s: %s; name the model with --served-model", shown, hideAll(err.Error(), hidden))
		}
		fmt.Fprintf(stderr, "requesting model %q, the first the server lists (--served-model to change)\n", model)
	}
	model = cmp.Or(model, d.Model.Name)
	if obs, check, err = runDesigned(ctx, ep, model, d, f.timeout, stderr); err != nil {
		return nil, nil, 1, err
	}
	fitRuns, _, _ := plan.DesignCalibration(d)
	f.from = nil
	for _, r := range fitRuns {
		f.from = append(f.from, shown+": "+r.Purpose)
	}
	return obs, check, 0, nil
}

// write writes the fitted deployment to --out, if given.
func (f *calibrateFlags) write(c plan.Calibration) error {
	if f.outPath == "" {
		return nil
	}
	file := deploymentFile{Version: deploymentFileVersion, Deployment: c.Deployment, Calibration: &calibrationJSON{
		From: f.from, Fitted: c.Fitted, Conditioning: c.Conditioning,
	}}
	for _, r := range c.Residuals {
		file.Calibration.Residuals = append(file.Calibration.Residuals, residualJSON{
			Metric: string(r.Metric), PromptTokens: r.Scenario.PromptTokens, OutputTokens: r.Scenario.OutputTokens,
			Concurrency: r.Scenario.Concurrency, Requests: max(r.Scenario.Requests, r.Scenario.Concurrency), Measured: r.Value, Fitted: r.Predicted, Error: r.Error,
		})
	}
	b, err := json.MarshalIndent(file, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(f.outPath, append(b, '\n'), 0o644)
}

// print prints the fit c of n figures: each constant with its band, what
// the runs leave confounded, the residuals and the held-out loads.
func (f *calibrateFlags) print(w io.Writer, c plan.Calibration, n int, check []simulate.Observation) error {
	fd := c.Deployment
	fmt.Fprintf(w, "%s on %d × %s (%s), %d figures from %d runs\n\n", fd.Model.Name, fd.GPUs, fd.GPU.Name, fd.Precision.Name, n, len(f.from))
	for _, b := range c.Bands {
		fmt.Fprintf(w, "  %v\n", b)
	}
	if fd.GPUs > 1 {
		fmt.Fprintf(w, "  all-reduce     %s per all-reduce (class default; its latency is part of the step overhead)\n", fmtMs(fd.AllReduce))
	}
	fmt.Fprintf(w, "  conditioning   %.2g\n", c.Conditioning)
	// A fit that misses its own runs says nothing finer about other
	// loads than its misses.
	worst := c.Worst()
	spread := max(c.Spread, worst)
	if len(c.Confounded) > 0 {
		fmt.Fprintf(w, "  confounded     %s: these runs do not tell them apart; predictions at other loads could differ by %.0f%%\n",
			strings.Join(c.Confounded, ", "), 100*spread)
	} else {
		fmt.Fprintf(w, "  confounded     none; predictions at other loads within ±%.1f%% across the bands\n", 100*spread)
	}
	if worst > plan.Misfit {
		fmt.Fprintf(w, "  misfit         the fit misses its own runs by up to %.0f%%: the endpoint does not behave as the model does\n"+
			"                 (a cache, a queue or a batch it runs otherwise); predictions from it are not to be trusted\n", 100*worst)
	}
	fmt.Fprintln(w, "\nresiduals:")
	for _, r := range c.Residuals {
		fmt.Fprintf(w, "  %v\n", r)
	}
	if len(check) > 0 {
		fmt.Fprintln(w, "\nheld-out loads (not fitted):")
		for _, o := range check {
			p, err := o.Figure(c.Deployment)
			if err != nil {
				return err
			}
			sc := o.Scenario
			fmt.Fprintf(w, "  %s at %d prompt, %d output, %d concurrent: measured %.4g, predicted %.4g (%+.1f%%)\n",
				o.Metric, sc.PromptTokens, sc.OutputTokens, sc.Concurrency, o.Value, p, 100*(p-o.Value)/o.Value)
		}
	}
	if f.outPath != "" {
		fmt.Fprintf(w, "\nwrote %s (use: tokenpace predict --deployment %s)\n", f.outPath, f.outPath)
	}
	return nil
}

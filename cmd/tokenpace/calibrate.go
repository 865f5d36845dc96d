package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
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
	Concurrency  int                `json:"concurrency"`
	Planned      int                `json:"planned_requests"`
	Rate         float64            `json:"rate"`
	PromptTokens int                `json:"prompt_tokens"`
	MaxTokens    int                `json:"max_tokens"`
	Completed    int                `json:"completed"`
	OutputTokens float64            `json:"output_tokens"`
	TTFT         map[string]float64 `json:"ttft_ms"`
	TPOT         map[string]float64 `json:"tpot_ms"`
}

// maxCalibrateTokens bounds the output tokens of one simulated run.
const maxCalibrateTokens = 200_000

// maxBenchReport bounds a bench report read (they are a few KB).
const maxBenchReport = 16 << 20

// observationsFrom reads a bench --json report and returns its mean TTFT
// and TPOT as observations of its closed loop: planned_requests sent by
// concurrency clients.
func observationsFrom(path string) ([]simulate.Observation, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--from: %w", err)
	}
	if len(b) > maxBenchReport {
		return nil, fmt.Errorf("--from %s: %d bytes, more than a bench report holds", path, len(b))
	}
	var r benchRunJSON
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("--from %s: not a tokenpace bench --json report: %w", path, err)
	}
	switch {
	case r.PromptTokens <= 0 || r.Planned <= 0:
		return nil, fmt.Errorf("--from %s: not a tokenpace bench --json report (no prompt_tokens or planned_requests)", path)
	case r.Rate > 0:
		return nil, fmt.Errorf("--from %s: an open-loop (--rate) run; calibrate reads closed-loop runs, whose load is their concurrency", path)
	case r.Completed <= 0:
		return nil, fmt.Errorf("--from %s: no request completed", path)
	}
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

func runCalibrate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tokenpace calibrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	hw := addDeploymentFlags(fs)
	var from stringsFlag
	fs.Var(&from, "from", "a tokenpace bench --json report of the endpoint (repeat: runs at different prompt lengths and concurrencies)")
	outPath := fs.String("out", "", "deployment file to write (for --deployment of predict, sim and bench)")
	baseURL := fs.String("base-url", "", "endpoint to calibrate by running designed loads against it, e.g. http://localhost:8000/v1 (instead of --from)")
	keyEnv := fs.String("api-key-env", "OPENAI_API_KEY", "environment variable holding the endpoint's API key (--base-url)")
	timeout := fs.Duration("timeout", 5*time.Minute, "longest one request of a designed run may take (--base-url)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tokenpace calibrate --base-url URL --model M [hardware flags] [--out deploy.json]\n\n"+
			"   or: tokenpace calibrate --model M --gpu G [hardware flags] --from run1.json --from run2.json --out deploy.json\n\n"+
			"Fits the deployment's bandwidth share (MBU), tensor share (MFU) and fixed time per step. With\n"+
			"--base-url it designs and runs the loads that identify them (one stream; many streams of long\n"+
			"contexts sharing a cached prefix; a long prefill) and two held-out loads that check the fit;\n"+
			"with --from it reads bench --json runs. It prints each constant with its uncertainty band, names\n"+
			"the constants the runs leave confounded, and writes a deployment file.\n\nFlags:")
		fs.PrintDefaults()
	}
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	switch {
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "tokenpace calibrate: unexpected argument %q\n", fs.Arg(0))
		return 2
	case len(from) == 0 && *baseURL == "":
		fmt.Fprintln(stderr, "tokenpace calibrate: --base-url (run designed loads) or at least one --from bench report is needed")
		return 2
	case len(from) > 0 && *baseURL != "":
		fmt.Fprintln(stderr, "tokenpace calibrate: --base-url and --from exclude each other")
		return 2
	case *outPath == "" && *baseURL == "":
		fmt.Fprintln(stderr, "tokenpace calibrate: --out is needed")
		return 2
	case *timeout <= 0:
		fmt.Fprintf(stderr, "tokenpace calibrate: --timeout must be positive, got %v\n", *timeout)
		return 2
	}
	for _, name := range []string{"mbu", "mfu", "step-overhead"} {
		if hw.set()[name] {
			fmt.Fprintf(stderr, "tokenpace calibrate: --%s is what calibrate fits; leave it out\n", name)
			return 2
		}
	}
	d, err := hw.deployment()
	if err != nil {
		fmt.Fprintf(stderr, "tokenpace calibrate: %v\n", err)
		return 1
	}
	// Fit from the class defaults, not from an earlier fit.
	d.MBU, d.MFU, d.StepOverhead = 0, 0, 0
	var obs, check []simulate.Observation
	if *baseURL != "" {
		ep, err := dialCalibrate(*baseURL, *keyEnv)
		if err != nil {
			fmt.Fprintf(stderr, "tokenpace calibrate: %v\n", err)
			return 2
		}
		defer ep.close()
		model := hw.model
		if model == "" {
			model = d.Model.Name
		}
		if obs, check, err = runDesigned(context.Background(), ep, model, d, *timeout, stderr); err != nil {
			fmt.Fprintf(stderr, "tokenpace calibrate: %v\n", err)
			return 1
		}
		fitRuns, _, _ := simulate.DesignCalibration(d)
		from = nil
		for _, r := range fitRuns {
			from = append(from, *baseURL+": "+r.Purpose)
		}
	}
	for _, path := range from {
		if *baseURL != "" {
			break
		}
		o, err := observationsFrom(path)
		if err != nil {
			fmt.Fprintf(stderr, "tokenpace calibrate: %v\n", err)
			return 1
		}
		obs = append(obs, o...)
	}
	c, err := simulate.Calibrate(d, obs)
	if err != nil {
		fmt.Fprintf(stderr, "tokenpace calibrate: %v\n", err)
		return 1
	}
	file := deploymentFile{Version: deploymentFileVersion, Deployment: c.Deployment, Calibration: &calibrationJSON{
		From: from, Fitted: c.Fitted, Conditioning: c.Conditioning,
	}}
	for _, r := range c.Residuals {
		file.Calibration.Residuals = append(file.Calibration.Residuals, residualJSON{
			Metric: string(r.Metric), PromptTokens: r.Scenario.PromptTokens, OutputTokens: r.Scenario.OutputTokens,
			Concurrency: r.Scenario.Concurrency, Requests: max(r.Scenario.Requests, r.Scenario.Concurrency), Measured: r.Value, Fitted: r.Predicted, Error: r.Error,
		})
	}
	if *outPath != "" {
		b, err := json.MarshalIndent(file, "", "  ")
		if err == nil {
			err = os.WriteFile(*outPath, append(b, '\n'), 0o644)
		}
		if err != nil {
			fmt.Fprintf(stderr, "tokenpace calibrate: %v\n", err)
			return 1
		}
	}
	fd := c.Deployment
	fmt.Fprintf(stdout, "%s on %d × %s (%s), %d figures from %d runs\n\n", fd.Model.Name, fd.GPUs, fd.GPU.Name, fd.Precision.Name, len(obs), len(from))
	for _, b := range c.Bands {
		fmt.Fprintf(stdout, "  %v\n", b)
	}
	if fd.GPUs > 1 {
		fmt.Fprintf(stdout, "  all-reduce     %s per all-reduce (class default; its latency is part of the step overhead)\n", fmtMs(fd.AllReduce))
	}
	fmt.Fprintf(stdout, "  conditioning   %.2g\n", c.Conditioning)
	if len(c.Confounded) > 0 {
		fmt.Fprintf(stdout, "  confounded     %s: these runs do not tell them apart; predictions at other loads could differ by %.0f%%\n",
			strings.Join(c.Confounded, ", "), 100*c.Spread)
	} else {
		fmt.Fprintf(stdout, "  confounded     none; predictions at other loads within ±%.1f%% across the bands\n", 100*c.Spread)
	}
	fmt.Fprintln(stdout, "\nresiduals:")
	for _, r := range c.Residuals {
		fmt.Fprintf(stdout, "  %v\n", r)
	}
	if len(check) > 0 {
		fmt.Fprintln(stdout, "\nheld-out loads (not fitted):")
		for _, o := range check {
			p, err := o.Figure(c.Deployment)
			if err != nil {
				fmt.Fprintf(stderr, "tokenpace calibrate: %v\n", err)
				return 1
			}
			sc := o.Scenario
			fmt.Fprintf(stdout, "  %s at %d prompt, %d output, %d concurrent: measured %.4g, predicted %.4g (%+.1f%%)\n",
				o.Metric, sc.PromptTokens, sc.OutputTokens, sc.Concurrency, o.Value, p, 100*(p-o.Value)/o.Value)
		}
	}
	if *outPath != "" {
		fmt.Fprintf(stdout, "\nwrote %s (use: tokenpace predict --deployment %s)\n", *outPath, *outPath)
	}
	return 0
}

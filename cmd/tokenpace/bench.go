package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tokenpace/tokenpace/metrics"
)

// benchFlags are the flags of tokenpace bench.
type benchFlags struct {
	baseURL     string
	apiKeyEnv   string
	requests    int
	concurrency int
	rate        float64
	prompt      int
	maxTokens   int
	sloTTFT     time.Duration
	sloTPOT     time.Duration
	warmup      int
	timeout     time.Duration
	seed        uint64
	asJSON      bool
	plot        string
	export      string
	progress    bool
	hw          *deploymentFlags
	set         map[string]bool
}

// runBench measures an OpenAI-compatible endpoint (by default a simulator
// started in process) under load and reports latency percentiles,
// throughput, goodput and errors. It returns the exit code: 0 after a run
// in which some request completed, 1 when none did or the endpoint cannot
// be reached, 2 for bad flags, 130 after an interruption (the figures of
// what was measured are still printed).
func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	f, code := parseBenchFlags(args, stderr)
	if f == nil {
		return code
	}
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(stderr, "tokenpace bench: "+format+"\n", a...)
		return code
	}

	tgt, err := newBenchTarget(f)
	if err != nil {
		return fail(2, "%v", err)
	}
	defer tgt.close()
	if err := tgt.probe(ctx, f.timeout); err != nil {
		if ctx.Err() != nil {
			return fail(130, "interrupted")
		}
		return fail(1, "%v", err)
	}
	if note := tgt.modelNote(); note != "" {
		// Some servers take names they do not list (Ollama without a
		// tag): a warning, not a refusal.
		fmt.Fprintf(stderr, "tokenpace bench: warning: %s\n", note)
	}

	var bar progress = noProgress{}
	if f.progress && isTerminal(stderr) {
		bar = newProgressBar(f.requests, stderr)
	}
	lg := &loadGen{
		client:      tgt.client,
		params:      newPromptMaker(tgt.model, f.prompt, f.maxTokens, f.seed),
		requests:    f.requests,
		concurrency: f.concurrency,
		rate:        f.rate,
		warmup:      f.warmup,
		timeout:     f.timeout,
		seed:        f.seed,
		keep:        f.plot != "" || f.export != "",
		progress:    bar,
		recorder:    metrics.NewRecorder(metrics.WithSLO(metrics.SLO{TTFT: f.sloTTFT, TPOT: f.sloTPOT})),
	}
	res := lg.run(ctx)
	bar.finish()

	rep := newBenchReport(f, tgt, res)
	for _, w := range rep.warnings() {
		fmt.Fprintf(stderr, "tokenpace bench: WARNING: %s\n", w)
	}
	if f.asJSON {
		err = rep.writeJSON(stdout)
	} else {
		err = rep.writeText(stdout)
	}
	if err != nil {
		return fail(1, "writing the report: %v", err)
	}
	if f.export != "" {
		if err := writeExport(f.export, res.rows); err != nil {
			return fail(1, "export: %v", err)
		}
		if !f.asJSON {
			fmt.Fprintf(stdout, "%d requests written to %s\n", len(res.rows), f.export)
		}
	}
	if f.plot != "" && len(res.timings) > 0 {
		if err := writePlot(f.plot, res); err != nil {
			fmt.Fprintf(stderr, "tokenpace bench: plot: %v\n", err)
			return 1
		}
		if !f.asJSON {
			fmt.Fprintf(stdout, "plot written to %s\n", f.plot)
		}
	}
	switch {
	case res.interrupted:
		return 130
	case rep.snap.Completed == 0:
		if note := tgt.modelNote(); note != "" {
			return fail(1, "no request completed: %s", note)
		}
		fmt.Fprintln(stderr, "tokenpace bench: no request completed")
		return 1
	}
	return 0
}

// parseBenchFlags parses and checks args. It returns nil and the exit code
// when the command should stop (help, or a bad flag already reported).
func parseBenchFlags(args []string, stderr io.Writer) (*benchFlags, int) {
	fs := flag.NewFlagSet("tokenpace bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &benchFlags{}
	fs.StringVar(&f.baseURL, "base-url", "", "OpenAI-compatible API base URL, e.g. http://localhost:8000/v1 (default: an embedded simulator)")
	f.hw = addDeploymentFlags(fs)
	fs.Lookup("model").Usage = "model to request; without --base-url, also the embedded simulator's catalog model (default llama-3.1-8b; with --base-url: the first model the server lists)"
	fs.StringVar(&f.apiKeyEnv, "api-key-env", "OPENAI_API_KEY", "name of the environment variable holding the API key (the key is never printed)")
	fs.IntVar(&f.requests, "requests", 64, "requests to measure")
	fs.IntVar(&f.concurrency, "concurrency", 16, "requests in flight at once; with --rate, a cap on them (default: none), past which requests go out late")
	fs.Float64Var(&f.rate, "rate", 0, "Poisson arrivals per second; 0 sends in a closed loop at --concurrency")
	fs.IntVar(&f.prompt, "prompt-tokens", 256, "prompt tokens per request (approximate on a real tokenizer)")
	fs.IntVar(&f.maxTokens, "max-tokens", 128, "max_tokens of each request")
	fs.DurationVar(&f.sloTTFT, "slo-ttft", 0, "goodput: longest acceptable time to first token (0: no objective)")
	fs.DurationVar(&f.sloTPOT, "slo-tpot", 0, "goodput: longest acceptable time per output token (0: no objective)")
	fs.IntVar(&f.warmup, "warmup", 0, "requests sent before measuring, not counted")
	fs.DurationVar(&f.timeout, "timeout", 60*time.Second, "per-request timeout")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of the prompts and of the Poisson arrivals")
	fs.BoolVar(&f.asJSON, "json", false, "print one JSON object instead of the table")
	fs.StringVar(&f.plot, "plot", "", "write a latency plot (TTFT CDF, ITL histogram, throughput over time) to this .png or .svg file")
	fs.StringVar(&f.export, "export", "", "write every measured request (timestamps, figures, tokens, error, server) to this file, one JSON object a line")
	fs.BoolVar(&f.progress, "progress", true, "show a progress bar on stderr when it is a terminal")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tokenpace bench [flags]\n\nMeasures an OpenAI-compatible streaming endpoint under load: TTFT, TPOT, ITL and E2E\npercentiles, throughput, goodput and errors. Without --base-url it measures an embedded\nsimulator (model and GPU from the flags below).\n\nFlags:")
		fs.PrintDefaults()
	}
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return nil, code
	}
	bad := func(format string, a ...any) (*benchFlags, int) {
		fmt.Fprintf(stderr, "tokenpace bench: "+format+"\n", a...)
		return nil, 2
	}
	if fs.NArg() > 0 {
		return bad("unexpected argument %q", fs.Arg(0))
	}
	f.set = f.hw.set()
	if f.rate > 0 && !f.set["concurrency"] {
		f.concurrency = 0 // an open loop sends on schedule, as vLLM's bench does
	}
	for _, v := range []struct {
		name string
		v    int
		min  int
	}{{"requests", f.requests, 1}, {"concurrency", f.concurrency, 0}, {"prompt-tokens", f.prompt, 1}, {"max-tokens", f.maxTokens, 1}, {"warmup", f.warmup, 0}} {
		if v.v < v.min {
			return bad("--%s must be at least %d, got %d", v.name, v.min, v.v)
		}
	}
	switch {
	case f.rate < 0 || math.IsNaN(f.rate) || math.IsInf(f.rate, 0):
		return bad("--rate must be a finite number, not negative, got %v", f.rate)
	case f.rate == 0 && f.concurrency == 0:
		return bad("--concurrency 0 (no cap) needs --rate: a closed loop needs a number of clients")
	case f.timeout <= 0:
		return bad("--timeout must be positive, got %v", f.timeout)
	case f.sloTTFT < 0 || f.sloTPOT < 0:
		return bad("--slo-ttft and --slo-tpot must not be negative")
	}
	if f.plot != "" {
		switch strings.ToLower(filepath.Ext(f.plot)) {
		case ".png", ".svg":
		default:
			return bad("--plot %q: want a .png or .svg file name", f.plot)
		}
	}
	if f.baseURL != "" {
		for name := range f.set {
			if deploymentFlagNames[name] && name != "model" {
				return bad("--%s sets the embedded simulator's deployment; it has no effect with --base-url", name)
			}
		}
	}
	if f.apiKeyEnv == "" {
		return bad("--api-key-env must name an environment variable")
	}
	return f, 0
}

// deploymentFlagNames holds the names of the flags addDeploymentFlags
// registers.
var deploymentFlagNames = func() map[string]bool {
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	addDeploymentFlags(fs)
	names := map[string]bool{}
	fs.VisitAll(func(f *flag.Flag) { names[f.Name] = true })
	return names
}()

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	fd, ok := w.(*os.File)
	return ok && termIsTerminal(int(fd.Fd()))
}

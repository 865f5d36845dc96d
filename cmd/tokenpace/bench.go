package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// benchFlags are the flags of tokenpace bench.
type benchFlags struct {
	baseURL     string
	apiKeyEnv   string
	requests    int
	concurrency int
	rate        float64
	burstiness  float64
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
	report      string
	compare     [2]string
	progress    bool
	traceFile   string
	tf          *traceFlags
	sess        sessionFlags
	search      searchFlags
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
	if f.compare[0] != "" {
		return runCompare(f, stdout, stderr)
	}
	lg, err := f.newLoad()
	if err != nil {
		return benchFail(stderr, 2, "%v", err)
	}
	tgt, code := openBenchTarget(ctx, f, stderr)
	if tgt == nil {
		return code
	}
	defer tgt.close()
	lg.target(tgt, f)
	if f.search.on {
		return runRateSearch(ctx, f, tgt, lg, stdout, stderr)
	}
	var bar progress = noProgress{}
	if f.progress && isTerminal(stderr) {
		bar = newProgressBar(lg.requests, stderr)
	}
	lg.progress = bar
	res := lg.run(ctx)
	bar.finish()
	return f.finish(newBenchReport(f, tgt, lg, res), tgt, stdout, stderr)
}

// benchFail writes one line to stderr and returns code.
func benchFail(stderr io.Writer, code int, format string, a ...any) int {
	fmt.Fprintf(stderr, "tokenpace bench: "+format+"\n", a...)
	return code
}

// openBenchTarget connects to the endpoint under test and checks that it
// answers; nil and the exit code when it cannot.
func openBenchTarget(ctx context.Context, f *benchFlags, stderr io.Writer) (*benchTarget, int) {
	tgt, err := newBenchTarget(f)
	if err != nil {
		return nil, benchFail(stderr, 2, "%v", err)
	}
	if err := tgt.probe(ctx, f.timeout); err != nil {
		tgt.close()
		if ctx.Err() != nil {
			return nil, benchFail(stderr, 130, "interrupted")
		}
		return nil, benchFail(stderr, 1, "%v", err)
	}
	if note := tgt.modelNote(); note != "" {
		// Some servers take names they do not list (Ollama without a
		// tag): a warning, not a refusal.
		fmt.Fprintf(stderr, "tokenpace bench: warning: %s\n", note)
	}
	return tgt, 0
}

// finish prints the report and writes the files asked for; it returns
// the exit code.
func (f *benchFlags) finish(rep *benchReport, tgt *benchTarget, stdout, stderr io.Writer) int {
	res := rep.res
	for _, w := range rep.warnings() {
		fmt.Fprintf(stderr, "tokenpace bench: WARNING: %s\n", w)
	}
	var err error
	if f.asJSON {
		err = rep.writeJSON(stdout)
	} else {
		err = rep.writeText(stdout)
	}
	if err != nil {
		return benchFail(stderr, 1, "writing the report: %v", err)
	}
	if code := f.writeFiles(rep, stdout, stderr); code != 0 {
		return code
	}
	switch {
	case res.interrupted:
		return 130
	case rep.snap.Completed == 0:
		if note := tgt.modelNote(); note != "" {
			return benchFail(stderr, 1, "no request completed: %s", note)
		}
		if errors.Is(res.firstErr, context.DeadlineExceeded) {
			return benchFail(stderr, 1, "no request completed within --timeout %v", f.timeout)
		}
		if res.firstErr != nil {
			return benchFail(stderr, 1, "no request completed; the first failed with %s", tgt.failure(res.firstErr))
		}
		return benchFail(stderr, 1, "no request completed")
	}
	return 0
}

// writeFiles writes --export, --plot and --report, each whatever became
// of the others (a run's figures are dear to make again); it returns a
// non-zero exit code when one fails.
func (f *benchFlags) writeFiles(rep *benchReport, stdout, stderr io.Writer) int {
	res := rep.res
	say := func(format string, a ...any) {
		if !f.asJSON {
			fmt.Fprintf(stdout, format+"\n", a...)
		}
	}
	code := 0
	if f.export != "" {
		if err := writeExport(f.export, res.rows); err != nil {
			code = benchFail(stderr, 1, "export: %v", err)
		} else {
			say("%s written to %s", count(len(res.rows), "request"), f.export)
		}
	}
	if f.plot != "" && len(res.timings) > 0 {
		switch err := writePlot(f.plot, res); {
		case errors.Is(err, errNothingToPlot):
			// Not the plot's failure: the run's, which the exit code
			// says once the other files are written.
			fmt.Fprintf(stderr, "tokenpace bench: plot not written: %v\n", err)
		case err != nil:
			code = benchFail(stderr, 1, "plot: %v", err)
		default:
			say("plot written to %s", f.plot)
		}
	}
	if f.report != "" {
		if err := writeHTMLFile(f.report, rep.page()); err != nil {
			code = benchFail(stderr, 1, "report: %v", err)
		} else {
			say("report written to %s", f.report)
		}
	}
	return code
}

// parseBenchFlags parses and checks args. It returns nil and the exit code
// when the command should stop (help, or a bad flag already reported).
func parseBenchFlags(args []string, stderr io.Writer) (*benchFlags, int) {
	fs := flag.NewFlagSet("tokenpace bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := registerBenchFlags(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tokenpace bench [flags]\n\n"+
			"Measures an OpenAI-compatible streaming endpoint under load: TTFT, TPOT,\n"+
			"ITL and E2E percentiles, throughput, goodput and errors. The load is a\n"+
			"closed loop (--concurrency), an open loop (--rate, Poisson or\n"+
			"--burstiness), a replayed trace (--trace: Azure, BurstGPT, Mooncake), or\n"+
			"multi-turn sessions (--sessions). --find-max-rate searches the highest\n"+
			"rate whose goodput meets the SLO; --report writes an HTML report.\n"+
			"Without --base-url it measures an embedded simulator (model and GPU from\n"+
			"the flags below).\n\n"+
			"Two runs side by side:\n"+
			"  tokenpace bench --compare a.json b.json [--report compare.html]\n\nFlags:")
		fs.PrintDefaults()
	}
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return nil, code
	}
	if f.compare[0] != "" {
		// The second report ends the flags: parse those after it.
		if fs.NArg() == 0 {
			return nil, benchFail(stderr, 2, "--compare takes two bench --json reports: --compare a.json b.json")
		}
		f.compare[1] = fs.Arg(0)
		if code, ok := parseFlags(fs, fs.Args()[1:], stderr); !ok {
			return nil, code
		}
		if fs.NArg() > 0 {
			return nil, benchFail(stderr, 2, "--compare takes two bench --json reports, got a third argument %q", fs.Arg(0))
		}
		if other := flagsBesides(fs, "compare", "report", "json"); len(other) > 0 {
			return nil, benchFail(stderr, 2, "--compare reads two saved reports and runs nothing: %s would be ignored (it takes --report and --json)", strings.Join(other, ", "))
		}
		return f, 0
	}
	if fs.NArg() > 0 {
		return nil, benchFail(stderr, 2, "unexpected argument %q", fs.Arg(0))
	}
	f.set = f.hw.set()
	if (f.rate > 0 || f.traceFile != "") && !f.set["concurrency"] {
		f.concurrency = 0 // an open loop sends on schedule, as vLLM's bench does
	}
	if err := f.check(); err != nil {
		return nil, benchFail(stderr, 2, "%v", err)
	}
	return f, 0
}

// registerBenchFlags registers bench's flags on fs.
func registerBenchFlags(fs *flag.FlagSet) *benchFlags {
	f := &benchFlags{}
	fs.StringVar(&f.baseURL, "base-url", "", "OpenAI-compatible API base URL, e.g. http://localhost:8000/v1 (default: an embedded simulator)")
	f.hw = addDeploymentFlags(fs)
	fs.Lookup("model").Usage = "model to request; without --base-url, also the embedded simulator's catalog model (default llama-3.1-8b; with --base-url: the first model the server lists)"
	fs.StringVar(&f.apiKeyEnv, "api-key-env", "OPENAI_API_KEY", "name of the environment variable holding the API key (the key is never printed)")
	fs.IntVar(&f.requests, "requests", 64, "requests to measure")
	fs.IntVar(&f.concurrency, "concurrency", 16, "requests in flight at once; with --rate, a cap on them (default: none), past which requests go out late")
	fs.Float64Var(&f.rate, "rate", 0, "Poisson arrivals per second; 0 sends in a closed loop at --concurrency")
	fs.Float64Var(&f.burstiness, "burstiness", 0, "with --rate: gamma-distributed gaps with this coefficient of variation (above 1: bursts; 0: Poisson)")
	fs.IntVar(&f.prompt, "prompt-tokens", 256, "prompt tokens per request (approximate on a real tokenizer); with --sessions, per turn")
	fs.IntVar(&f.maxTokens, "max-tokens", 128, "max_tokens of each request")
	fs.DurationVar(&f.sloTTFT, "slo-ttft", 0, "goodput: longest acceptable time to first token (0: no objective)")
	fs.DurationVar(&f.sloTPOT, "slo-tpot", 0, "goodput: longest acceptable time per output token (0: no objective)")
	fs.IntVar(&f.warmup, "warmup", 0, "requests sent before measuring, not counted")
	fs.DurationVar(&f.timeout, "timeout", 60*time.Second, "per-request timeout, at most 1h (the longest latency the figures record)")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of the prompts and of the Poisson arrivals; against --base-url without it, the prompts are drawn afresh each run, so that no prompt cache serves them (the JSON report's prompt_seed, given here, sends them again)")
	fs.BoolVar(&f.asJSON, "json", false, "print one JSON object instead of the table")
	fs.StringVar(&f.plot, "plot", "", "write a latency plot (TTFT CDF, ITL histogram, throughput over time) to this .png or .svg file")
	fs.StringVar(&f.export, "export", "", "write every measured request (timestamps, figures, tokens, error, server) to this file, one JSON object a line")
	fs.StringVar(&f.report, "report", "", "write a self-contained HTML report (settings, distributions, latency over time, rate search, every request) to this .html file")
	fs.StringVar(&f.compare[0], "compare", "", "compare two bench --json reports side by side: --compare a.json b.json")
	fs.BoolVar(&f.progress, "progress", true, "show a progress bar on stderr when it is a terminal")
	fs.StringVar(&f.traceFile, "trace", "", "replay this trace file: its arrival times, prompt and output lengths and shared prefixes")
	f.tf = addTraceFlags(fs)
	f.sess.register(fs)
	f.search.register(fs)
	return f
}

// check reports the first flag that is out of range or clashes.
func (f *benchFlags) check() error {
	for _, v := range []struct {
		name string
		v    int
		min  int
	}{{"requests", f.requests, 1}, {"concurrency", f.concurrency, 0}, {"prompt-tokens", f.prompt, 1}, {"max-tokens", f.maxTokens, 1}, {"warmup", f.warmup, 0}} {
		if v.v < v.min {
			return fmt.Errorf("--%s must be at least %d, got %d", v.name, v.min, v.v)
		}
	}
	switch {
	case f.prompt > maxPromptTokens:
		return fmt.Errorf("--prompt-tokens %d: want at most %d, the longest prompt a trace may hold (each prompt is built in memory)", f.prompt, maxPromptTokens)
	case f.rate < 0 || math.IsNaN(f.rate) || math.IsInf(f.rate, 0):
		return fmt.Errorf("--rate must be a finite number, not negative, got %v", f.rate)
	case f.rate != 0 && (f.rate < minRate || f.rate > maxRate):
		return fmt.Errorf("--rate %g: want requests per second in [%g, %g], or 0 for a closed loop", f.rate, minRate, maxRate)
	case f.rate != 0 && float64(f.requests)/f.rate > maxArrivalSpan.Seconds():
		return fmt.Errorf("--rate %g with --requests %d: the arrivals would span %.3g s, want at most %g s", f.rate, f.requests, float64(f.requests)/f.rate, maxArrivalSpan.Seconds())
	case f.burstiness != 0 && (f.rate == 0 || !(f.burstiness > 0 && f.burstiness <= 100)):
		return fmt.Errorf("--burstiness needs --rate and a coefficient of variation in (0, 100], got %v", f.burstiness)
	case f.rate == 0 && f.concurrency == 0 && f.traceFile == "" && !f.sess.on() && !f.search.on:
		return errors.New("--concurrency 0 (no cap) needs --rate: a closed loop needs a number of clients")
	case f.timeout <= 0:
		return fmt.Errorf("--timeout must be positive, got %v", f.timeout)
	case f.timeout > maxLatency:
		return fmt.Errorf("--timeout %v: want at most %v, the longest latency the figures record", f.timeout, maxLatency)
	case f.sloTTFT < 0 || f.sloTPOT < 0:
		return errors.New("--slo-ttft and --slo-tpot must not be negative")
	case f.traceFile != "" && (f.set["rate"] || f.set["requests"] || f.set["prompt-tokens"] || f.set["max-tokens"] || f.sess.on() || f.search.on):
		return errors.New("--trace sets the load (arrivals, prompt and output lengths): it excludes --rate, --requests, --prompt-tokens, --max-tokens, --sessions and --find-max-rate")
	case f.traceFile == "" && (f.set["speedup"] || f.set["window"] || f.set["window-start"] || f.set["trace-format"]):
		return errors.New("--speedup, --window, --window-start and --trace-format need --trace")
	}
	if err := f.sess.check(f); err != nil {
		return err
	}
	if err := f.search.check(f); err != nil {
		return err
	}
	return f.checkFiles()
}

// The request rates an open loop can schedule: a gap between arrivals
// must be a duration the clock can wait (a rate of 1e-300 made it overflow
// to a negative one), and the whole run a span a trace may have too.
const (
	minRate        = 1e-6
	maxRate        = 1e6
	maxArrivalSpan = 1e9 * time.Second
)

// maxLatency is the longest latency the figures record: metrics clamps
// longer ones to it (see metrics.RelativeError), so a longer --timeout
// would let a request's E2E be reported shorter than it took.
const maxLatency = time.Hour

// maxPromptTokens bounds --prompt-tokens as the trace readers bound a
// traced prompt: 1<<24 tokens, 64 MiB of text to build and send.
const maxPromptTokens = 1 << 24

// checkFiles checks the output file flags.
func (f *benchFlags) checkFiles() error {
	if err := checkPlotName(f.plot); err != nil {
		return err
	}
	for _, o := range []struct{ flag, path string }{{"export", f.export}, {"plot", f.plot}, {"report", f.report}} {
		if err := checkOutputDir(o.flag, o.path); err != nil {
			return err
		}
	}
	if f.report != "" && !strings.EqualFold(filepath.Ext(f.report), ".html") {
		return fmt.Errorf("--report %q: want an .html file name", f.report)
	}
	if f.baseURL != "" {
		for name := range f.set {
			if deploymentFlagNames[name] && name != "model" {
				return fmt.Errorf("--%s sets the embedded simulator's deployment; it has no effect with --base-url", name)
			}
		}
	}
	if f.apiKeyEnv == "" {
		return errors.New("--api-key-env must name an environment variable")
	}
	return nil
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

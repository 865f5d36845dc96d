package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
	"github.com/tokenpace/tokenpace/simulate/plan"
)

// planFlags are plan's flags.
type planFlags struct {
	model                      string
	rate                       float64
	prompt, output             int
	promptCV, outputCV         float64
	constant                   bool
	burstiness                 float64
	trace                      *traceFlags
	requests                   int
	prefixTokens, prefixes     int
	seed                       uint64
	workload                   string
	batchRequests              int
	deadline                   time.Duration
	gpus, tps, precisions      string
	batches, routings          string
	maxGPUs                    int
	prices                     priceFlags
	top                        int
	json                       bool
	plot                       string
	runtime                    string
	mbu, mfu                   float64
	maxBatchedTokens, kvTokens int
	noPrefixCache, kvPreempt   bool
	ttftP50, ttftP90, ttftP99  time.Duration
	tpotP99, e2eP99            time.Duration
	goodput                    float64
	headroom                   float64
	samples                    int
}

// maxPlanRequests bounds --requests: each simulated candidate runs them
// all.
const maxPlanRequests = 200_000

// maxPlanSamples bounds --samples: a candidate that meets the SLO runs
// every sample.
const maxPlanSamples = 20

// maxPlanDrawn bounds the requests of all samples together (they are held
// in memory, about 56 bytes each, twice with headroom).
const maxPlanDrawn = 1_000_000

// planUsage heads `tokenpace plan -h`.
const planUsage = `usage: tokenpace plan --model M --rate R --slo-ttft-p99 D [flags]

Finds the cheapest deployment (GPU, TP, precision, max batch, routing,
replicas) that meets the SLO, simulating candidate clusters offline and
ruling out by roofline bounds what cannot work.

Near capacity the p99 of one arrival draw is luck, so an online candidate
is judged on --samples independent draws of the load (seeds --seed,
--seed+1, ...) at --headroom above --rate: by default 3 draws at 10% above.
It meets the SLO only if it meets it on every draw, and reports its worst
figures. A trace file, or constant arrivals of fixed lengths, is one draw;
a batch job is judged on throughput.

Exit status: 0 when a deployment meets the SLO, 3 when none does (the
closest misses are listed), 2 for bad flags, 1 for other errors.

Flags:
`

// priceFlags collects repeated --price GPU=USD flags.
type priceFlags []string

func (p *priceFlags) String() string     { return strings.Join(*p, ",") }
func (p *priceFlags) Set(v string) error { *p = append(*p, v); return nil }

// runPlan searches for the cheapest deployment that meets the SLO and
// prints the ranked candidates (text, or JSON with --json). It returns
// 130, printing no pick, when ctx ends first; the search, which cannot be
// stopped, is left to end with the process.
func runPlan(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	f := &planFlags{}
	fs := f.declare(stderr)
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "tokenpace plan: unexpected arguments %q\n", fs.Args())
		return 2
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	in, desc, err := f.input(set)
	if err != nil {
		fmt.Fprintf(stderr, "tokenpace plan: %v\n", err)
		return 2
	}
	start := time.Now()
	res, err := searchUntil(ctx, in)
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "tokenpace plan: interrupted; no deployment picked")
		return 130
	}
	if err != nil {
		fmt.Fprintf(stderr, "tokenpace plan: %v\n", err)
		return 2
	}
	rep := &planReport{f: f, in: in, res: res, desc: desc, elapsed: time.Since(start)}
	if f.plot != "" {
		if err := writeParetoPlot(f.plot, rep); err != nil {
			fmt.Fprintf(stderr, "tokenpace plan: --plot: %v\n", err)
			return 1
		}
	}
	if f.json {
		err = rep.writeJSON(stdout)
	} else {
		err = rep.writeText(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "tokenpace plan: %v\n", err)
		return 1
	}
	if res.Best == nil {
		return 3
	}
	return 0
}

// checkArrivalSpan refuses requests arriving at rate over more than
// maxArrivalSpan.
func checkArrivalSpan(rate float64, requests int) error {
	if span := float64(requests) / rate; span > maxArrivalSpan.Seconds() {
		return fmt.Errorf("the arrivals would span %.3g s, want at most %g s", span, maxArrivalSpan.Seconds())
	}
	return nil
}

// searchUntil runs plan.Search on in, unless ctx ends first.
func searchUntil(ctx context.Context, in plan.Input) (*plan.Result, error) {
	return plan.SearchContext(ctx, in)
}

// declare declares the flags of tokenpace plan into f, on a new flag set
// that writes to stderr.
func (f *planFlags) declare(stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("tokenpace plan", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, planUsage); fs.PrintDefaults() }
	fs.StringVar(&f.model, "model", "llama-3.1-8b", "catalog model to serve, e.g. llama-3.1-8b, llama-3.1-70b, qwen2.5-7b")
	fs.Float64Var(&f.rate, "rate", 0, "requests per second to serve (online load)")
	fs.IntVar(&f.prompt, "prompt-tokens", 1000, "prompt tokens per request (the mean, with --prompt-cv)")
	fs.IntVar(&f.output, "output-tokens", 256, "output tokens per request (the mean, with --output-cv)")
	fs.Float64Var(&f.promptCV, "prompt-cv", 0, "spread of prompt lengths: coefficient of variation of a log-normal draw (0: fixed)")
	fs.Float64Var(&f.outputCV, "output-cv", 0, "spread of output lengths: coefficient of variation of a log-normal draw (0: fixed)")
	fs.BoolVar(&f.constant, "constant", false, "arrivals at a constant rate instead of a Poisson process")
	fs.IntVar(&f.requests, "requests", 0, "requests to simulate per candidate (default: 60 s of load, at least 500, at most 5000; a batch job: a sample of 1024)")
	fs.IntVar(&f.prefixTokens, "prefix-tokens", 0, "leading prompt tokens shared between requests (a system prompt), for prefix caching")
	fs.IntVar(&f.prefixes, "prefixes", 1, "distinct shared prefixes, used in turn")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of arrival times and lengths")
	fs.StringVar(&f.workload, "workload", "", "the load as a file: a trace (Azure, BurstGPT or Mooncake, or a CSV arrival_s,prompt_tokens,output_tokens[,prefix_id]) or a tokenpace bench --json report")
	f.trace = addTraceFlags(fs)
	fs.Float64Var(&f.burstiness, "burstiness", 0, "gamma-distributed arrivals whose gaps have this coefficient of variation (above 1: bursts; 0: Poisson)")
	fs.IntVar(&f.batchRequests, "batch-requests", 0, "a batch job of this many requests, all queued at once, judged on throughput only (with --deadline)")
	fs.DurationVar(&f.deadline, "deadline", 0, "a batch job must finish within this time, e.g. 8h")
	fs.DurationVar(&f.ttftP50, "slo-ttft-p50", 0, "SLO: TTFT p50 limit, e.g. 100ms")
	fs.DurationVar(&f.ttftP90, "slo-ttft-p90", 0, "SLO: TTFT p90 limit")
	fs.DurationVar(&f.ttftP99, "slo-ttft-p99", 0, "SLO: TTFT p99 limit")
	fs.DurationVar(&f.tpotP99, "slo-tpot-p99", 0, "SLO: TPOT p99 limit")
	fs.DurationVar(&f.e2eP99, "slo-e2e-p99", 0, "SLO: E2E p99 limit")
	fs.Float64Var(&f.goodput, "goodput", plan.DefaultGoodput, "SLO: share of requests that must meet every p99 limit")
	fs.Float64Var(&f.headroom, "headroom", 0.1, "spare capacity of an online pick: every candidate is judged at rate × (1 + headroom), e.g. 0.1 for 10% (0: none)")
	fs.IntVar(&f.samples, "samples", 3, "independent arrival draws (seeds seed, seed+1, ...) an online candidate must meet the SLO on, its worst reported (a trace file is one draw)")
	fs.StringVar(&f.gpus, "gpu", "", "comma-separated GPUs to consider (default: every catalog GPU with a price)")
	fs.StringVar(&f.tps, "tp", "1,2,4,8", "comma-separated tensor-parallel degrees (GPUs per replica)")
	fs.StringVar(&f.precisions, "precision", "bf16,fp8,int4", "comma-separated weight precisions")
	fs.StringVar(&f.batches, "max-batch", "16,32,64,128,256", "comma-separated max batch sizes (sequences per replica)")
	fs.StringVar(&f.routings, "routing", "", "comma-separated routings: least-outstanding, round-robin, affinity (default: least-outstanding, plus affinity with shared prefixes)")
	fs.IntVar(&f.maxGPUs, "max-gpus", 64, "most GPUs a deployment may use, all replicas together")
	fs.Var(&f.prices, "price", "GPU=USD per GPU-hour, overriding the list price (repeatable), e.g. h100=2.49")
	fs.IntVar(&f.top, "top", 5, "deployments to list that meet the SLO, cheapest first, then as many no dearer than the best that miss it")
	fs.BoolVar(&f.json, "json", false, "print one JSON object")
	fs.StringVar(&f.plot, "plot", "", "draw the cost vs p99 TTFT Pareto front to this file (.png or .svg)")
	fs.StringVar(&f.runtime, "runtime", "", "serving engine: vllm (also sglang, trtllm, tensorrt-llm, mlc, …), llama.cpp (also ollama) or eager (also tgi, transformers) (default: by precision)")
	fs.Float64Var(&f.mbu, "mbu", 0, "memory bandwidth utilisation in (0, 1], e.g. from a calibrated deployment (default: the runtime's)")
	fs.Float64Var(&f.mfu, "mfu", 0, "FLOPs utilisation in (0, 1] (default: the runtime's)")
	fs.IntVar(&f.maxBatchedTokens, "max-batched-tokens", 0, "chunked-prefill budget per step (default 8192, or more to hold the batch)")
	fs.IntVar(&f.kvTokens, "kv-tokens", 0, "KV-cache capacity per replica in tokens (default: from memory)")
	fs.BoolVar(&f.noPrefixCache, "no-prefix-cache", false, "disable prefix caching")
	fs.BoolVar(&f.kvPreempt, "kv-preempt", false, "preempt sequences when the KV cache is full (default: offload to host memory)")
	return fs
}

// input builds the planner's input from the flags, with a description of
// the load.
func (f *planFlags) input(set map[string]bool) (plan.Input, string, error) {
	var in plan.Input
	m, err := simulate.LookupModel(f.model)
	if err != nil {
		return in, "", err
	}
	in.Template.Model = m
	if f.runtime != "" {
		if in.Template.Runtime, err = simulate.ParseRuntime(f.runtime); err != nil {
			return in, "", fmt.Errorf("unknown --runtime %q (known: %s)", f.runtime, strings.Join(simulate.RuntimeNames(), ", "))
		}
	}
	if err := f.checkNumbers(set); err != nil {
		return in, "", err
	}
	if err := checkPlotName(f.plot); err != nil {
		return in, "", err
	}
	if err := checkOutputDir("plot", f.plot); err != nil {
		return in, "", err
	}
	if err := f.checkApplies(set); err != nil {
		return in, "", err
	}
	f.setTemplate(&in)
	desc, draws, err := f.load(set, &in)
	if err != nil {
		return in, "", err
	}
	switch {
	case draws == nil:
		// A trace file: its arrivals and lengths are the load.
		if given := setAmong(set, "burstiness", "constant", "prompt-tokens", "prompt-cv", "output-tokens", "output-cv",
			"prefix-tokens", "prefixes", "requests", "seed", "samples"); len(given) > 0 {
			return in, "", fmt.Errorf("--workload %s is a trace, whose arrivals and lengths are the load (one draw): %s would be ignored", f.workload, strings.Join(given, ", "))
		}
	case f.workload != "":
		// A bench report: its mean lengths are the load's; the spread
		// around them, the arrival process and the sample are the flags'.
		if given := setAmong(set, "prompt-tokens", "output-tokens"); len(given) > 0 {
			return in, "", fmt.Errorf("--workload %s is a bench report, whose prompt and mean output lengths are the load: %s would be ignored", f.workload, strings.Join(given, ", "))
		}
	}
	if in.BatchRequests == 0 {
		n, err := f.drawSamples(&in, draws)
		if err != nil {
			return in, "", err
		}
		desc += judgedText(n, f.headroom)
	}
	if err := f.space(&in); err != nil {
		return in, "", err
	}
	if err := f.setPrices(&in); err != nil {
		return in, "", err
	}
	return in, desc, nil
}

// checkNumbers refuses numeric flags out of their range.
func (f *planFlags) checkNumbers(set map[string]bool) error {
	for _, v := range []struct {
		name string
		v    int
	}{{"max-batched-tokens", f.maxBatchedTokens}, {"kv-tokens", f.kvTokens}, {"requests", f.requests}, {"batch-requests", f.batchRequests},
		{"prompt-tokens", f.prompt}, {"output-tokens", f.output}, {"prefix-tokens", f.prefixTokens}, {"prefixes", f.prefixes}, {"max-gpus", f.maxGPUs}, {"top", f.top}} {
		if v.v < 0 || (set[v.name] && v.v == 0 && v.name != "prefix-tokens") {
			return fmt.Errorf("--%s must be positive, got %d", v.name, v.v)
		}
	}
	if !(f.mbu >= 0 && f.mbu <= 1) || !(f.mfu >= 0 && f.mfu <= 1) {
		return fmt.Errorf("--mbu and --mfu must be in (0, 1], got %v and %v", f.mbu, f.mfu)
	}
	if !(f.headroom >= 0 && f.headroom <= 10) {
		return fmt.Errorf("--headroom must be in [0, 10] (a fraction: 0.1 is 10%%), got %v", f.headroom)
	}
	if f.samples < 1 || f.samples > maxPlanSamples {
		return fmt.Errorf("--samples must be in [1, %d], got %d", maxPlanSamples, f.samples)
	}
	if f.requests > maxPlanRequests {
		return fmt.Errorf("--requests %d: at most %d (every candidate simulates them all)", f.requests, maxPlanRequests)
	}
	if !(f.goodput > 0 && f.goodput <= 1) {
		return fmt.Errorf("--goodput must be in (0, 1], got %v", f.goodput)
	}
	if !(f.burstiness >= 0) { // NaN too: it ran as Poisson
		return fmt.Errorf("--burstiness must not be negative, got %v", f.burstiness)
	}
	if set["prefix-tokens"] && set["prompt-tokens"] && f.prefixTokens >= f.prompt {
		// Clamped, every request would be a whole cache hit.
		return fmt.Errorf("--prefix-tokens %d must be under --prompt-tokens %d", f.prefixTokens, f.prompt)
	}
	return nil
}

// checkApplies refuses a flag given where it does nothing: the trace's
// flags without a workload file, a batch job's deadline for an online
// load, and the draws of an online load for a batch job, which is judged
// on throughput alone. (Given --deadline, an online search ran for over
// ten minutes judging every candidate against it, and found none.)
func (f *planFlags) checkApplies(set map[string]bool) error {
	if given := setAmong(set, "speedup", "window", "window-start", "trace-format"); len(given) > 0 && !set["workload"] {
		verb := "need"
		if len(given) == 1 {
			verb = "needs"
		}
		return fmt.Errorf("%s %s --workload (a trace file)", strings.Join(given, ", "), verb)
	}
	if set["deadline"] && f.batchRequests == 0 {
		return errors.New("--deadline is a batch job's: it needs --batch-requests (an online load is held to --slo-* limits)")
	}
	if given := setAmong(set, "samples", "headroom"); len(given) > 0 && f.batchRequests > 0 {
		return fmt.Errorf("--batch-requests is judged on throughput alone: %s would be ignored", strings.Join(given, ", "))
	}
	return nil
}

// setAmong returns, as "--name", those of names that set holds.
func setAmong(set map[string]bool, names ...string) []string {
	var given []string
	for _, n := range names {
		if set[n] {
			given = append(given, "--"+n)
		}
	}
	return given
}

// setTemplate sets the deployment every candidate starts from, and the
// SLO.
func (f *planFlags) setTemplate(in *plan.Input) {
	in.Template.MBU, in.Template.MFU = f.mbu, f.mfu
	in.Template.MaxBatchedTokens, in.Template.KVCapacityTokens = f.maxBatchedTokens, f.kvTokens
	in.Template.DisablePrefixCaching = f.noPrefixCache
	if f.kvPreempt {
		in.Template.KVPolicy = simulate.KVPreempt
	}
	in.SLO = plan.SLO{TTFTP50: f.ttftP50, TTFTP90: f.ttftP90, TTFTP99: f.ttftP99, TPOTP99: f.tpotP99, E2EP99: f.e2eP99, Goodput: f.goodput, Deadline: f.deadline}
}

// load sets in's workload from the flags (a batch job, a workload file
// or a rate) and returns its description and the load to draw further
// samples of (nil for a trace).
func (f *planFlags) load(set map[string]bool, in *plan.Input) (desc string, draws *simulate.Workload, err error) {
	w := simulate.Workload{Rate: f.rate, Requests: f.requests, Prompt: simulate.TokenDist{Mean: f.prompt, CV: f.promptCV},
		Output: simulate.TokenDist{Mean: f.output, CV: f.outputCV}, PrefixTokens: f.prefixTokens, Prefixes: f.prefixes, Seed: f.seed}
	switch {
	case f.constant && f.burstiness > 0:
		return "", nil, errors.New("--constant and --burstiness exclude each other")
	case f.constant:
		w.Process = simulate.ConstantProcess
	case f.burstiness > 0:
		w.Process, w.Burstiness = simulate.GammaProcess, f.burstiness
	}
	draws = &w
	switch {
	case f.batchRequests > 0:
		if f.deadline <= 0 {
			return "", nil, errors.New("--batch-requests needs --deadline")
		}
		if set["rate"] || set["workload"] {
			return "", nil, errors.New("--batch-requests queues every request at once: it excludes --rate and --workload")
		}
		w.Rate = 0
		w.Requests = min(orInt(f.requests, 1024), f.batchRequests)
		in.BatchRequests = f.batchRequests
		desc = fmt.Sprintf("batch job of %d requests (%s prompt, %s output tokens) by %v; sized from a sample of %d", f.batchRequests, lengthText(w.Prompt), lengthText(w.Output), f.deadline, w.Requests)
	case f.workload != "":
		if set["rate"] {
			return "", nil, errors.New("--workload sets the load: it excludes --rate")
		}
		w.Requests = orInt(f.requests, 0)
		in.Workload, draws, desc, err = readWorkloadFile(f.workload, w, f.trace)
		if err != nil {
			return "", nil, err
		}
	default:
		if !(f.rate > 0) || math.IsInf(f.rate, 0) {
			return "", nil, errors.New("--rate must be a positive number of requests per second (or give --workload or --batch-requests)")
		}
		if f.rate < minRate || f.rate > maxRate {
			return "", nil, fmt.Errorf("--rate %g: want requests per second in [%g, %g]", f.rate, minRate, maxRate)
		}
		if f.requests == 0 {
			w.Requests = min(max(int(f.rate*60), 500), 5000)
		}
		if err := checkArrivalSpan(w.Rate, w.Requests); err != nil {
			return "", nil, fmt.Errorf("--rate %g with --requests %d: %w", f.rate, w.Requests, err)
		}
		process := "Poisson"
		if f.constant {
			process = "constant"
		} else if f.burstiness > 0 {
			process = fmt.Sprintf("gamma, burstiness CV %g", f.burstiness)
		}
		desc = fmt.Sprintf("%g req/s (%s), %s prompt and %s output tokens; %d requests simulated", f.rate, process, lengthText(w.Prompt), lengthText(w.Output), w.Requests)
	}
	if in.Workload == nil {
		if in.Workload, err = w.Arrivals(); err != nil {
			return "", nil, err
		}
	}
	return desc, draws, nil
}

// drawSamples adds further draws of the load to in, and returns on how
// many draws a candidate is judged.
func (f *planFlags) drawSamples(in *plan.Input, draws *simulate.Workload) (int, error) {
	in.Headroom = f.headroom
	n := 1
	// Constant arrivals of fixed lengths draw the same load whatever
	// the seed: one draw is all of them.
	if draws != nil && (draws.Process != simulate.ConstantProcess || draws.Prompt.CV > 0 || draws.Output.CV > 0) {
		if len(in.Workload)*f.samples > maxPlanDrawn {
			return 0, fmt.Errorf("--samples %d of %d requests: at most %d requests in all", f.samples, len(in.Workload), maxPlanDrawn)
		}
		for i := 1; i < f.samples; i++ {
			s := *draws
			s.Seed += uint64(i)
			a, err := s.Arrivals()
			if err != nil {
				return 0, err
			}
			in.Samples = append(in.Samples, a)
		}
		n = f.samples
	}
	return n, nil
}

// space sets the deployments the planner searches.
func (f *planFlags) space(in *plan.Input) error {
	var err error
	sp := &in.Space
	sp.MaxGPUs = f.maxGPUs
	for _, name := range splitList(f.gpus) {
		g, err := simulate.LookupGPU(name)
		if err != nil {
			return fmt.Errorf("--gpu: %w", err)
		}
		sp.GPUs = append(sp.GPUs, g)
	}
	for _, name := range splitList(f.precisions) {
		p, err := simulate.LookupPrecision(name)
		if err != nil {
			return fmt.Errorf("--precision: %w", err)
		}
		sp.Precisions = append(sp.Precisions, p)
	}
	for _, name := range splitList(f.routings) {
		r, err := simulate.ParseRouting(name)
		if err != nil {
			return fmt.Errorf("--routing: %w", err)
		}
		sp.Routings = append(sp.Routings, r)
	}
	if sp.TP, err = intList("tp", f.tps); err != nil {
		return err
	}
	if sp.MaxBatch, err = intList("max-batch", f.batches); err != nil {
		return err
	}
	return nil
}

// setPrices sets the GPU-hour prices, the list's with --price's over them.
func (f *planFlags) setPrices(in *plan.Input) error {
	in.Prices = plan.DefaultPrices()
	for _, p := range f.prices {
		name, usd, ok := strings.Cut(p, "=")
		v, err := strconv.ParseFloat(strings.TrimSpace(usd), 64)
		if !ok || err != nil {
			return fmt.Errorf("--price %q: want GPU=USD per GPU-hour, e.g. h100=2.49", p)
		}
		if in.Prices, err = in.Prices.With(strings.TrimSpace(name), v); err != nil {
			return fmt.Errorf("--price: %w", err)
		}
	}
	// A GPU named in --gpu is searched even without a list price if
	// --price gives one; without either, say so.
	for _, g := range in.Space.GPUs {
		if _, ok := in.Prices[g.Name]; !ok {
			return fmt.Errorf("--gpu %s has no list price: give one with --price %s=USD", g.Name, g.Name)
		}
	}
	return nil
}

// judgedText says how an online candidate is judged: on how many arrival
// draws (a trace, or constant arrivals of fixed lengths, is one), at how
// much above the offered rate.
func judgedText(samples int, headroom float64) string {
	s := "; judged on 1 arrival draw"
	if samples > 1 {
		s = fmt.Sprintf("; judged on %d arrival draws (the worst counts)", samples)
	}
	if headroom > 0 {
		s += fmt.Sprintf(" at %g%% above the offered rate", headroom*100)
	}
	return s
}

func lengthText(d simulate.TokenDist) string {
	if d.CV > 0 {
		return fmt.Sprintf("%d (mean, CV %g)", d.Mean, d.CV)
	}
	return strconv.Itoa(d.Mean)
}

func orInt(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func intList(name, s string) ([]int, error) {
	var out []int
	for _, p := range splitList(s) {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("--%s: %q is not a positive integer", name, p)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--%s: empty list", name)
	}
	return out, nil
}

package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
)

// simFlags are the flags of tokenpace sim.
type simFlags struct {
	fs                                               *flag.FlagSet
	addr, name                                       string
	hw                                               *deploymentFlags
	cluster                                          *clusterFlags
	ttft, itl, rtt                                   time.Duration
	buffering, roleFirst, precise, faultHeader       bool
	chunkTokens                                      int
	seed                                             uint64
	faults                                           simulate.Faults
	headerTimeout, bodyTimeout, idleTimeout, writeTo time.Duration
	toolCalls                                        toolCallsFlag
}

// newSimFlags declares the flags of tokenpace sim on a new flag set that
// writes to stderr.
func newSimFlags(stderr io.Writer) *simFlags {
	fs := flag.NewFlagSet("tokenpace sim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &simFlags{fs: fs, hw: addDeploymentFlags(fs), cluster: addClusterFlags(fs)}
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8080", "address to listen on (port 0 picks a free one)")
	fs.StringVar(&f.name, "served-name", "", "model name clients must ask for (default: the catalog model's name, or \"sim\" with --ttft/--itl)")
	fs.DurationVar(&f.ttft, "ttft", 0, "fixed-timing mode: time to first token (with --itl; excludes the hardware flags)")
	fs.DurationVar(&f.itl, "itl", 0, "fixed-timing mode: inter-token latency")
	fs.DurationVar(&f.rtt, "rtt", 0, "network round-trip time added to every request")
	fs.BoolVar(&f.buffering, "buffering", false, "act as a buffering proxy: hold the whole response until it ends")
	fs.BoolVar(&f.roleFirst, "role-first", false, "send the role-only chunk at once, as hosted APIs do (default: with the first token, as vLLM)")
	fs.IntVar(&f.chunkTokens, "chunk-tokens", 1, "tokens per streamed chunk")
	fs.Uint64Var(&f.seed, "seed", 0, "seed of the generated text")
	fs.BoolVar(&f.precise, "precise-timer", false, "wake for each token on a kernel timer (Linux): sub-millisecond timing for a few streams, at more CPU per chunk")
	for _, row := range simulate.FaultTable() {
		fs.Float64Var(row.Rate(&f.faults), "fault-"+row.Name, 0, "share of requests "+row.Doc)
	}
	fs.IntVar(&f.faults.Size, "fault-size", simulate.DefaultOversizedBytes, "bytes of an oversized event's data line")
	fs.IntVar(&f.faults.After, "fault-after", 0, "output chunks sent before a mid-stream fault")
	fs.DurationVar(&f.faults.For, "fault-for", time.Second, "length of stalls, header delays and Retry-After")
	fs.Uint64Var(&f.faults.Seed, "fault-seed", 0, "seed of the fault draws")
	fs.BoolVar(&f.faultHeader, "fault-header", false, "let clients pick their request's fault with the "+simulate.FaultHeader+" header")
	fs.DurationVar(&f.headerTimeout, "header-timeout", 10*time.Second, "drop a connection whose request headers take longer")
	fs.DurationVar(&f.bodyTimeout, "body-timeout", simulate.DefaultBodyTimeout, "answer 408 and drop a connection whose request body takes longer")
	fs.DurationVar(&f.idleTimeout, "idle-timeout", 30*time.Second, "close a keep-alive connection idle for longer")
	fs.DurationVar(&f.writeTo, "write-timeout", simulate.DefaultWriteTimeout, "drop a client that takes none of a response's bytes for longer")
	fs.Var(&f.toolCalls, "tool-call", toolCallUsage)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tokenpace sim [flags]\n\n"+
			"Serves an OpenAI-compatible API (chat, completions, Responses, models)\n"+
			"whose timing comes from a hardware model of the deployment in the flags (a\n"+
			"catalog GPU and model, or your own figures), or from fixed --ttft/--itl;\n"+
			"with faults, a network RTT and a buffering proxy on demand. It prints the\n"+
			"base URL to give a client on its first line.\n\n"+
			"Example: tokenpace sim --model llama-3.1-8b --gpu h100 --addr 127.0.0.1:8080\n\nFlags:")
		fs.PrintDefaults()
	}
	return f
}

// runSim serves the simulator until ctx ends. It prints the base URL to
// give a client (e.g. http://127.0.0.1:8080/v1) as the first line of
// stdout, and a description of what it serves on stderr.
func runSim(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	f := newSimFlags(stderr)
	if code, ok := parseFlags(f.fs, args, stderr); !ok {
		return code
	}
	if err := f.check(); err != nil {
		fmt.Fprintf(stderr, "tokenpace sim: %v\n", err)
		return 2
	}
	sched, what, err := f.scheduler()
	if err != nil {
		fmt.Fprintf(stderr, "tokenpace sim: %v\n", err)
		return 2
	}
	srv, err := simulate.NewServer(f.options(sched)...)
	if err != nil {
		fmt.Fprintf(stderr, "tokenpace sim: %v\n", err)
		return 2
	}
	defer srv.Close()
	l, err := net.Listen("tcp", f.addr)
	if err != nil {
		fmt.Fprintf(stderr, "tokenpace sim: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s\n", baseURL(l.Addr()))
	fmt.Fprintf(stderr, "tokenpace sim: serving model %q (%s)\n", f.name, what)
	if len(f.toolCalls) > 0 {
		fmt.Fprintf(stderr, "tokenpace sim: calling %s when a request offers it\n", f.toolCalls.String())
	}
	if err := f.serve(ctx, srv, l); err != nil {
		fmt.Fprintf(stderr, "tokenpace sim: %v\n", err)
		return 1
	}
	return 0
}

// check refuses flag values that cannot work together.
func (f *simFlags) check() error {
	if f.headerTimeout <= 0 || f.bodyTimeout <= 0 || f.idleTimeout <= 0 || f.writeTo <= 0 {
		return errors.New("--header-timeout, --body-timeout, --idle-timeout and --write-timeout must be positive")
	}
	if f.fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", f.fs.Args())
	}
	return f.checkFaultShapes()
}

// faultShapes names, for each flag that shapes the faults drawn by rate,
// the faults it shapes. A fault picked by the fault header takes its
// parameters from the header, not from these flags.
var faultShapes = []struct {
	flag   string
	faults []string
}{
	{"fault-after", []string{"reset", "stall", "malformed", "truncated", "oversized", "error-event"}},
	{"fault-for", []string{"429", "stall", "slow-headers"}},
	{"fault-size", []string{"oversized"}},
}

// checkFaultShapes refuses a flag that shapes faults when no fault it
// shapes has a rate: the server would run without the fault the user
// asked to shape, and say nothing.
func (f *simFlags) checkFaultShapes() error {
	set := map[string]bool{}
	f.fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	rate := map[string]float64{}
	for _, row := range simulate.FaultTable() {
		rate[row.Name] = *row.Rate(&f.faults)
	}
	for _, s := range faultShapes {
		if !set[s.flag] || slices.ContainsFunc(s.faults, func(name string) bool { return rate[name] > 0 }) {
			continue
		}
		return fmt.Errorf("--%s shapes only faults drawn by rate (--fault-%s), and none is set; a fault picked by the %s header takes its own parameters",
			s.flag, strings.Join(s.faults, ", --fault-"), simulate.FaultHeader)
	}
	if set["fault-seed"] && !slices.ContainsFunc(simulate.FaultTable(), func(row simulate.FaultInfo) bool { return rate[row.Name] > 0 }) {
		return errors.New("--fault-seed seeds the draws of the --fault-NAME rates, and none is set")
	}
	return nil
}

// scheduler returns what times the served model, fixed or from the
// hardware flags, and a description of it; it names the served model
// when --served-name did not.
func (f *simFlags) scheduler() (simulate.Scheduler, string, error) {
	set := map[string]bool{}
	f.fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	if !set["ttft"] && !set["itl"] {
		d, err := f.hw.deployment()
		if err != nil {
			return nil, "", err
		}
		sched, what, err := f.cluster.scheduler(d)
		if err != nil {
			return nil, "", err
		}
		f.name = cmp.Or(f.name, d.Model.Name, simulate.DefaultModel)
		return sched, what, nil
	}
	if clusterFlagsSet(set) {
		return nil, "", errors.New("--replicas and --routing serve a hardware model; they exclude the fixed timing of --ttft and --itl")
	}
	for _, name := range slices.Sorted(maps.Keys(set)) {
		if deploymentFlagNames[name] {
			return nil, "", fmt.Errorf("--%s describes the simulated model, hardware or engine; it excludes the fixed timing of --ttft and --itl", name)
		}
	}
	if f.ttft < 0 || f.itl < 0 {
		return nil, "", errors.New("--ttft and --itl must not be negative")
	}
	f.name = cmp.Or(f.name, simulate.DefaultModel)
	return &simulate.Fixed{TTFT: f.ttft, ITL: f.itl}, fmt.Sprintf("fixed timing: TTFT %v, ITL %v", f.ttft, f.itl), nil
}

// options returns the server's options for a model timed by sched.
func (f *simFlags) options(sched simulate.Scheduler) []simulate.Option {
	opts := []simulate.Option{
		simulate.WithModel(f.name, sched),
		simulate.WithRTT(f.rtt),
		simulate.WithBuffering(f.buffering),
		simulate.WithRoleFirst(f.roleFirst),
		simulate.WithChunkTokens(f.chunkTokens),
		simulate.WithSeed(f.seed),
		simulate.WithPreciseTimer(f.precise),
		simulate.WithFaults(f.faults),
		simulate.WithFaultHeader(f.faultHeader),
		simulate.WithBodyTimeout(f.bodyTimeout),
		simulate.WithWriteTimeout(f.writeTo),
	}
	if len(f.toolCalls) > 0 {
		opts = append(opts, simulate.WithToolCalls(f.toolCalls.script()))
	}
	return opts
}

// serve serves srv on l until ctx ends, and returns the error that ended
// it sooner, if any.
func (f *simFlags) serve(ctx context.Context, srv *simulate.Server, l net.Listener) error {
	// No ReadTimeout or WriteTimeout: they would cut long streams. The
	// server bounds the body read itself.
	var shed simulate.IdleShedder // out of file descriptors, idle connections go first
	hs := &http.Server{Handler: srv, ConnContext: srv.ConnContext, ReadHeaderTimeout: f.headerTimeout, IdleTimeout: f.idleTimeout,
		ConnState: shed.ConnState}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(simulate.JSONErrorPages(shed.Listener(l))) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	// Streams in flight end with the connection: a simulator has no work
	// to save.
	hs.Close()
	<-served
	return nil
}

// baseURL is the base URL a client on this machine gives to reach addr, a
// listener's address: a listener on every interface (":0", "0.0.0.0:0",
// "[::]:0") is reached at 127.0.0.1, which every system resolves, where
// "http://[::]:PORT" works on some only.
func baseURL(addr net.Addr) string {
	if a, ok := addr.(*net.TCPAddr); ok && (a.IP == nil || a.IP.IsUnspecified()) {
		return fmt.Sprintf("http://127.0.0.1:%d/v1", a.Port)
	}
	return "http://" + addr.String() + "/v1"
}

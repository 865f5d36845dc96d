package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
)

// runSim serves the simulator until ctx ends. It prints the base URL to
// give a client (e.g. http://127.0.0.1:8080/v1) as the first line of
// stdout, and a description of what it serves on stderr.
func runSim(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tokenpace sim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on (port 0 picks a free one)")
	hw := addDeploymentFlags(fs)
	cluster := addClusterFlags(fs)
	name := fs.String("served-name", "", "model name clients must ask for (default: the catalog model's name, or \"sim\" with --ttft/--itl)")
	ttft := fs.Duration("ttft", 0, "fixed-timing mode: time to first token (with --itl; excludes the hardware flags)")
	itl := fs.Duration("itl", 0, "fixed-timing mode: inter-token latency")
	rtt := fs.Duration("rtt", 0, "network round-trip time added to every request")
	buffering := fs.Bool("buffering", false, "act as a buffering proxy: hold the whole response until it ends")
	roleFirst := fs.Bool("role-first", false, "send the role-only chunk at once, as hosted APIs do (default: with the first token, as vLLM)")
	chunkTokens := fs.Int("chunk-tokens", 1, "tokens per streamed chunk")
	seed := fs.Uint64("seed", 0, "seed of the generated text")
	precise := fs.Bool("precise-timer", false, "wake for each token on a kernel timer (Linux): sub-millisecond timing for a few streams, at more CPU per chunk")
	var faults simulate.Faults
	for _, f := range simulate.FaultTable() {
		fs.Float64Var(f.Rate(&faults), "fault-"+f.Name, 0, "share of requests "+f.Doc)
	}
	fs.IntVar(&faults.Size, "fault-size", simulate.DefaultOversizedBytes, "bytes of an oversized event's data line")
	fs.IntVar(&faults.After, "fault-after", 0, "output chunks sent before a mid-stream fault")
	fs.DurationVar(&faults.For, "fault-for", time.Second, "length of stalls, header delays and Retry-After")
	fs.Uint64Var(&faults.Seed, "fault-seed", 0, "seed of the fault draws")
	faultHeader := fs.Bool("fault-header", false, "let clients pick their request's fault with the "+simulate.FaultHeader+" header")
	headerTimeout := fs.Duration("header-timeout", 10*time.Second, "drop a connection whose request headers take longer")
	bodyTimeout := fs.Duration("body-timeout", simulate.DefaultBodyTimeout, "answer 408 and drop a connection whose request body takes longer")
	idleTimeout := fs.Duration("idle-timeout", 30*time.Second, "close a keep-alive connection idle for longer")
	writeTimeout := fs.Duration("write-timeout", simulate.DefaultWriteTimeout, "drop a client that takes none of a response's bytes for longer")
	var toolCalls toolCallsFlag
	fs.Var(&toolCalls, "tool-call", toolCallUsage)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tokenpace sim [flags]\n\n"+
			"Serves an OpenAI-compatible API (chat, completions, Responses, models) whose timing comes\n"+
			"from a hardware model of the deployment in the flags (a catalog GPU and model, or your own\n"+
			"figures), or from fixed --ttft/--itl; with faults, a network RTT and a buffering proxy on\n"+
			"demand. It prints the base URL to give a client on its first line.\n\n"+
			"Example: tokenpace sim --model llama-3.1-8b --gpu h100 --addr 127.0.0.1:8080\n\nFlags:")
		fs.PrintDefaults()
	}
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if *headerTimeout <= 0 || *bodyTimeout <= 0 || *idleTimeout <= 0 || *writeTimeout <= 0 {
		fmt.Fprintln(stderr, "tokenpace sim: --header-timeout, --body-timeout, --idle-timeout and --write-timeout must be positive")
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "tokenpace sim: unexpected arguments %q\n", fs.Args())
		return 2
	}

	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var sched simulate.Scheduler
	var what string
	if set["ttft"] || set["itl"] {
		if clusterFlagsSet(set) {
			fmt.Fprintln(stderr, "tokenpace sim: --replicas and --routing serve a hardware model; they exclude the fixed timing of --ttft and --itl")
			return 2
		}
		for _, name := range []string{"model", "precision", "params-b", "bits", "layers", "kv-heads", "head-dim", "hidden",
			"gpu", "bandwidth-gbs", "tflops", "memory-gb", "gpus", "mbu", "mfu"} {
			if set[name] {
				fmt.Fprintf(stderr, "tokenpace sim: --%s describes hardware; it excludes the fixed timing of --ttft and --itl\n", name)
				return 2
			}
		}
		if *ttft < 0 || *itl < 0 {
			fmt.Fprintln(stderr, "tokenpace sim: --ttft and --itl must not be negative")
			return 2
		}
		sched = &simulate.Fixed{TTFT: *ttft, ITL: *itl}
		what = fmt.Sprintf("fixed timing: TTFT %v, ITL %v", *ttft, *itl)
		if *name == "" {
			*name = simulate.DefaultModel
		}
	} else {
		d, err := hw.deployment()
		if err != nil {
			fmt.Fprintf(stderr, "tokenpace sim: %v\n", err)
			return 2
		}
		sched, what, err = cluster.scheduler(d)
		if err != nil {
			fmt.Fprintf(stderr, "tokenpace sim: %v\n", err)
			return 2
		}
		if *name == "" {
			*name = d.Model.Name
		}
		if *name == "" {
			*name = simulate.DefaultModel
		}
	}

	opts := []simulate.Option{
		simulate.WithModel(*name, sched),
		simulate.WithRTT(*rtt),
		simulate.WithBuffering(*buffering),
		simulate.WithRoleFirst(*roleFirst),
		simulate.WithChunkTokens(*chunkTokens),
		simulate.WithSeed(*seed),
		simulate.WithPreciseTimer(*precise),
		simulate.WithFaults(faults),
		simulate.WithFaultHeader(*faultHeader),
		simulate.WithBodyTimeout(*bodyTimeout),
		simulate.WithWriteTimeout(*writeTimeout),
	}
	if len(toolCalls) > 0 {
		opts = append(opts, simulate.WithToolCalls(toolCalls.script()))
	}
	srv, err := simulate.NewServer(opts...)
	if err != nil {
		fmt.Fprintf(stderr, "tokenpace sim: %v\n", err)
		return 2
	}
	defer srv.Close()
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "tokenpace sim: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "http://%s/v1\n", l.Addr())
	fmt.Fprintf(stderr, "tokenpace sim: serving model %q (%s)\n", *name, what)
	if len(toolCalls) > 0 {
		fmt.Fprintf(stderr, "tokenpace sim: calling %s when a request offers it\n", toolCalls.String())
	}

	// No ReadTimeout or WriteTimeout: they would cut long streams. The
	// server bounds the body read itself.
	var shed simulate.IdleShedder // out of file descriptors, idle connections go first
	hs := &http.Server{Handler: srv, ConnContext: srv.ConnContext, ReadHeaderTimeout: *headerTimeout, IdleTimeout: *idleTimeout,
		ConnState: shed.ConnState}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(simulate.JSONErrorPages(shed.Listener(l))) }()
	select {
	case err := <-served:
		fmt.Fprintf(stderr, "tokenpace sim: %v\n", err)
		return 1
	case <-ctx.Done():
	}
	// Streams in flight end with the connection: a simulator has no work
	// to save.
	hs.Close()
	<-served
	return 0
}

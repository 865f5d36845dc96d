// Command tokenpace serves the simulated LLM backend, benchmarks any
// OpenAI-compatible endpoint, predicts latency from hardware figures, fits
// that prediction to an endpoint's own measurements and plans the cheapest
// deployment that meets a latency objective.
//
// Usage:
//
//	tokenpace sim       [flags] serve the simulator
//	tokenpace bench     [flags] measure an endpoint (default: an embedded simulator)
//	tokenpace predict   [flags] predict latency from model and hardware figures
//	tokenpace plan      [flags] find the cheapest deployment that meets a latency SLO
//	tokenpace calibrate [flags] fit a deployment file to bench runs of an endpoint
//
// Run "tokenpace COMMAND -h" for the flags of each command.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// usage lists the commands, each with what it does and an example.
const usage = `tokenpace measures and plans the latency of OpenAI-compatible LLM endpoints.

Usage:

	tokenpace <command> [flags]

Commands:

	sim        serve a simulated endpoint timed by a hardware model
	    tokenpace sim --model llama-3.1-8b --gpu h100
	bench      measure an endpoint under load: TTFT, TPOT, ITL, E2E, goodput
	    tokenpace bench --base-url http://localhost:8000/v1 --concurrency 8
	predict    predict a request's latency from model and hardware figures
	    tokenpace predict --model llama-3.1-70b --gpu a100-80gb --gpus 4
	plan       find the cheapest deployment that meets a latency SLO
	    tokenpace plan --model llama-3.1-8b --rate 20 --slo-ttft-p99 500ms
	calibrate  fit a deployment to bench runs of your endpoint
	    tokenpace calibrate --model llama-3.1-8b --gpu l4 \
	        --from a.json --from b.json --out d.json

Without --base-url, bench measures an embedded simulator. Run
"tokenpace <command> -h" (or "tokenpace help <command>") for a command's
flags.
`

// commands are the subcommands run dispatches to.
var commands = []string{"sim", "bench", "predict", "plan", "calibrate"}

// run dispatches to a subcommand and returns the process exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "sim":
		return runSim(ctx, args[1:], stdout, stderr)
	case "bench":
		return runBench(ctx, args[1:], stdout, stderr)
	case "predict":
		return runPredict(args[1:], stdout, stderr)
	case "plan":
		return runPlan(ctx, args[1:], stdout, stderr)
	case "calibrate":
		return runCalibrate(ctx, args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		if len(args) > 1 && args[0] == "help" {
			return help(ctx, args[1], stdout, stderr)
		}
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "tokenpace: unknown command %q (want sim, bench, predict, plan or calibrate; see tokenpace -h)\n", args[0])
	return 2
}

// help prints, for "tokenpace help <command>", the command's usage line,
// what it does and its flags, on stdout as the usage "tokenpace help"
// prints is, so that it can be paged; a name that is no command is an
// error, status 2, not the usage and success. ("<command> -h" prints the
// same on stderr, as the flag package does.)
func help(ctx context.Context, command string, stdout, stderr io.Writer) int {
	if !slices.Contains(commands, command) {
		fmt.Fprintf(stderr, "tokenpace help: unknown command %q (want sim, bench, predict, plan or calibrate)\n", command)
		return 2
	}
	return run(ctx, []string{command, "-h"}, stdout, stdout)
}

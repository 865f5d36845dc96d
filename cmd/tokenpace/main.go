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
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// usage names the subcommands.
const usage = "usage: tokenpace sim|bench|predict|plan|calibrate [flags]"

// run dispatches to a subcommand and returns the process exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
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
		return runPlan(args[1:], stdout, stderr)
	case "calibrate":
		return runCalibrate(args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprintln(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "tokenpace: unknown command %q (want sim, bench, predict, plan or calibrate)\n", args[0])
	return 2
}

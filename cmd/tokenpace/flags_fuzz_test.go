package main

import (
	"io"
	"strings"
	"testing"

	"github.com/tokenpace/tokenpace/simulate"
)

// FuzzBenchFlags feeds arbitrary command lines to bench's flag parsing and
// to the deployment the shared hardware flags describe: whatever the user
// types, the answer is a parsed set of flags or a clear error, never a panic,
// and a deployment that is accepted has figures the simulator can use.
func FuzzBenchFlags(f *testing.F) {
	for _, seed := range []string{
		"",
		"--requests\n10\n--concurrency\n4",
		"--rate\n2.5\n--concurrency\n0",
		"--timeout\n1h30m\n--slo-ttft\n180ms\n--slo-tpot\n30ms",
		"--model\nllama-3.1-70b\n--gpu\nrtx-4090\n--gpus\n2\n--precision\nq4_k_m",
		"--params-b\n13\n--layers\n40\n--bits\n4.85",
		"--bandwidth-gbs\n1000\n--tflops\n165\n--memory-gb\n24",
		"--params-b\nNaN",
		"--mbu\n+Inf",
		"--step-overhead\n-1ns",
		"--plot\nx.svg\n--json",
		"--draft-tokens\n4\n--draft-acceptance\n0.8",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if len(line) > 512 {
			return
		}
		var args []string
		if line != "" {
			args = strings.Split(line, "\n")
		}
		bf, code := parseBenchFlags(args, io.Discard)
		if bf == nil {
			if code != 0 && code != 2 {
				t.Fatalf("parseBenchFlags(%q) exit code = %d, want 0 or 2", args, code)
			}
			return
		}
		if bf.timeout <= 0 || bf.requests < 1 || bf.rate < 0 {
			t.Fatalf("parseBenchFlags(%q) accepted timeout %v, requests %d, rate %v", args, bf.timeout, bf.requests, bf.rate)
		}
		d, err := bf.hw.deployment()
		if err != nil {
			return
		}
		checkDeployment(t, args, d)
	})
}

// checkDeployment fails t when an accepted deployment is one the simulator
// cannot build an engine for without a clear error.
func checkDeployment(t *testing.T, args []string, d simulate.Deployment) {
	t.Helper()
	if _, err := simulate.NewEngine(d); err != nil && err.Error() == "" {
		t.Fatalf("deployment from %q: NewEngine error with no message", args)
	}
}

package main

import (
	"strings"
	"testing"
	"testing/synctest"
)

// Values a flag's type takes but no run can: refused with one line that
// names the flag and what it takes, before anything is sent. Each of these
// was accepted and gave a figure that was not measured, or took the
// process down.
func TestBenchRejectsOutOfRangeLoads(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string // in stderr
	}{
		// A gap of 1e300 s overflowed to a negative duration: the
		// requests went out at once and were reported 2562047 hours late.
		{"rate too low to schedule", []string{"--rate", "1e-300", "--requests", "2"}, []string{"--rate 1e-300", "1e-06"}},
		{"rate too high to schedule", []string{"--rate", "1e308", "--requests", "2"}, []string{"--rate 1e+308", "1e+06"}},
		// Each prompt is built in memory before it is sent: 1e9 tokens
		// took the process down (killed, out of memory).
		{"prompt past any context", []string{"--prompt-tokens", "20000000", "--requests", "1", "--concurrency", "1"}, []string{"--prompt-tokens 20000000", "16777216"}},
		// The figures record latencies up to one hour: a request of
		// 4615 s (its export said so) was reported with an E2E of
		// 3600810 ms in a run that took 4615.32 s.
		{"timeout past the figures", []string{"--requests", "1", "--concurrency", "1", "--bandwidth-gbs", "2", "--tflops", "10", "--memory-gb", "100",
			"--prompt-tokens", "64", "--max-tokens", "512", "--timeout", "3h"}, []string{"--timeout 3h0m0s", "1h0m0s"}},
		{"gamma arrivals past any run", []string{"--rate", "1e-6", "--burstiness", "2", "--requests", "100000"}, []string{"--rate", "--requests 100000"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				code, stdout, stderr := bench(t, t.Context(), tt.args...)
				if code != 2 {
					t.Errorf("bench %q exit = %d, want 2 (stdout %q)", tt.args, code, stdout)
				}
				for _, w := range tt.want {
					if !strings.Contains(stderr, w) {
						t.Errorf("bench %q stderr = %q, want it to mention %q", tt.args, stderr, w)
					}
				}
				if strings.Count(stderr, "\n") != 1 {
					t.Errorf("bench %q stderr = %q, want one line", tt.args, stderr)
				}
			})
		})
	}
}

// A --speedup that stretches a trace's arrivals past what a run can span
// is refused, in bench and in plan: 1e-300 overflowed them, and bench
// described the trace as lasting -2562047h47m16.854775808s and its
// requests as sent 2562047 hours late.
func TestTraceSpeedupPastAnyRun(t *testing.T) {
	azure := traceSample("azure_conv_sample.csv")
	for _, speedup := range []string{"1e-300", "1e-9"} {
		t.Run("plan "+speedup, func(t *testing.T) {
			code, stdout, stderr := planCmd(t, "--model", "llama-3.1-8b", "--slo-ttft-p99", "500ms", "--workload", azure, "--speedup", speedup)
			if code != 2 || stdout != "" || !strings.Contains(stderr, "--speedup 1e-") || !strings.Contains(stderr, "at most") {
				t.Errorf("plan --workload %s --speedup %s = exit %d, stdout %q, stderr %q; want 2 naming --speedup", azure, speedup, code, stdout, stderr)
			}
		})
		t.Run("bench "+speedup, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				code, stdout, stderr := bench(t, t.Context(), "--trace", azure, "--speedup", speedup)
				if code != 2 || stdout != "" || !strings.Contains(stderr, "--speedup 1e-") || !strings.Contains(stderr, "at most") {
					t.Errorf("bench --trace %s --speedup %s = exit %d, stdout %q, stderr %q; want 2 naming --speedup", azure, speedup, code, stdout, stderr)
				}
			})
		})
	}
}

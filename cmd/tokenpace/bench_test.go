package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// benchOut is the part of bench's JSON report the tests read.
type benchOut struct {
	Requests          *float64           `json:"requests"`
	Completed         *float64           `json:"completed"`
	Failed            *float64           `json:"failed"`
	DurationS         *float64           `json:"duration_s"`
	RequestThroughput *float64           `json:"request_throughput"`
	OutputThroughput  *float64           `json:"output_throughput"`
	Goodput           *float64           `json:"goodput"`
	OutputTokens      float64            `json:"output_tokens"`
	TTFT              map[string]float64 `json:"ttft_ms"`
	TPOT              map[string]float64 `json:"tpot_ms"`
	ITL               map[string]float64 `json:"itl_ms"`
	E2E               map[string]float64 `json:"e2e_ms"`
	Errors            map[string]int64   `json:"errors"`
	Detections        map[string]int64   `json:"detections"`
	Predicted         map[string]float64 `json:"predicted"`
	Late              int                `json:"late_requests"`
	MaxLateMs         float64            `json:"max_lateness_ms"`
	Interrupted       bool               `json:"interrupted"`
	Abandoned         int                `json:"abandoned"`
}

// bench runs tokenpace bench with args and returns its exit code, stdout
// and stderr.
func bench(t *testing.T, ctx context.Context, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := runBench(ctx, args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// benchJSON runs bench with --json and decodes its report.
func benchJSON(t *testing.T, ctx context.Context, wantCode int, args ...string) benchOut {
	t.Helper()
	code, stdout, stderr := bench(t, ctx, append([]string{"--json"}, args...)...)
	if code != wantCode {
		t.Fatalf("bench %q exit = %d, want %d (stderr %q)", args, code, wantCode, stderr)
	}
	var out benchOut
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("bench %q: decoding the JSON report: %v\n%s", args, err, stdout)
	}
	return out
}

func TestBenchJSONReportsTheContractFields(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		out := benchJSON(t, t.Context(), 0, "--model", "llama-3.2-1b", "--requests", "8", "--concurrency", "4",
			"--prompt-tokens", "64", "--max-tokens", "16")
		for name, v := range map[string]*float64{
			"requests": out.Requests, "completed": out.Completed, "failed": out.Failed, "duration_s": out.DurationS,
			"request_throughput": out.RequestThroughput, "output_throughput": out.OutputThroughput, "goodput": out.Goodput,
		} {
			if v == nil {
				t.Errorf("JSON report has no %q", name)
			}
		}
		for name, d := range map[string]map[string]float64{"ttft_ms": out.TTFT, "tpot_ms": out.TPOT, "itl_ms": out.ITL, "e2e_ms": out.E2E} {
			for _, k := range []string{"mean", "p50", "p90", "p95", "p99", "max"} {
				if v, ok := d[k]; !ok || v <= 0 {
					t.Errorf("%s.%s = %v (present %v), want a positive number", name, k, v, ok)
				}
			}
		}
		if out.Errors == nil {
			t.Errorf("errors missing from the JSON report, want an empty object")
		}
		if *out.Requests != 8 || *out.Completed != 8 || *out.Failed != 0 {
			t.Errorf("requests, completed, failed = %v, %v, %v, want 8, 8, 0", *out.Requests, *out.Completed, *out.Failed)
		}
		if out.OutputTokens != 8*16 {
			t.Errorf("output_tokens = %v, want %d", out.OutputTokens, 8*16)
		}
		if got, want := *out.Goodput, *out.RequestThroughput; got != want {
			t.Errorf("goodput = %v, want request_throughput %v (no SLO set)", got, want)
		}
	})
}

// TestBenchAgreesWithPredict checks that bench measures, on virtual time,
// what the simulator's offline prediction says for the same load: 4 clients
// sending identical requests together.
func TestBenchAgreesWithPredict(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const model, prompt, output, conc = "llama-3.1-8b", 512, 64, 4
		out := benchJSON(t, t.Context(), 0, "--model", model, "--requests", "4", "--concurrency", "4",
			"--prompt-tokens", "512", "--max-tokens", "64")
		m, err := simulate.LookupModel(model)
		if err != nil {
			t.Fatal(err)
		}
		g, err := simulate.LookupGPU("h100-sxm")
		if err != nil {
			t.Fatal(err)
		}
		p, err := simulate.Predict(simulate.Deployment{Model: m, GPU: g, Precision: simulate.BF16, GPUs: 1},
			simulate.Scenario{PromptTokens: prompt, OutputTokens: output, Concurrency: conc})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name      string
			got, want float64
		}{
			{"predicted.ttft_ms", out.Predicted["ttft_ms"], msf(p.TTFT)},
			{"predicted.tpot_ms", out.Predicted["tpot_ms"], msf(p.TPOT)},
			{"ttft_ms.mean", out.TTFT["mean"], msf(p.TTFT)},
			{"tpot_ms.mean", out.TPOT["mean"], msf(p.TPOT)},
			{"e2e_ms.mean", out.E2E["mean"], msf(p.E2E)},
		} {
			if diff := c.got - c.want; diff > 0.01*c.want || diff < -0.01*c.want {
				t.Errorf("%s = %.3f, want %.3f (simulate.Predict) within 1%%", c.name, c.got, c.want)
			}
		}
	})
}

// An open loop sends on schedule: with --rate there is no cap on requests
// in flight unless --concurrency sets one. A cap that holds requests back
// is the client's delay: said out loud, reported apart, and kept out of
// the server's latency figures.
func TestBenchRateReportsTheClientsLatenessApart(t *testing.T) {
	tests := []struct {
		name string
		args []string
		late bool
	}{
		// Each request takes about a second; at 50/s one slot cannot keep
		// up, so requests queue in the load generator.
		{"capped at one in flight", []string{"--concurrency", "1"}, true},
		{"no cap by default", nil, false},
		{"no cap", []string{"--concurrency", "0"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				args := append([]string{"--json", "--model", "llama-3.2-1b", "--requests", "10", "--rate", "50",
					"--prompt-tokens", "64", "--max-tokens", "200", "--warmup", "2"}, tt.args...)
				code, stdout, stderr := bench(t, t.Context(), args...)
				if code != 0 {
					t.Fatalf("exit = %d, stderr %q", code, stderr)
				}
				var out struct {
					benchOut
					Lateness map[string]float64 `json:"client_lateness_ms"`
					Warnings []string           `json:"warnings"`
				}
				if err := json.Unmarshal([]byte(stdout), &out); err != nil {
					t.Fatal(err)
				}
				if got := out.Late > 0; got != tt.late {
					t.Errorf("late_requests = %d, want late requests %v", out.Late, tt.late)
				}
				if *out.Completed != 10 {
					t.Errorf("completed = %v, want 10", *out.Completed)
				}
				if out.Lateness["max"] != out.MaxLateMs {
					t.Errorf("client_lateness_ms.max = %v, want max_lateness_ms %v", out.Lateness["max"], out.MaxLateMs)
				}
				warned := strings.Contains(stderr, "WARNING: the client delayed") && strings.Contains(stderr, "--concurrency")
				if warned != tt.late || (len(out.Warnings) > 0) != tt.late {
					t.Errorf("warned on stderr %v, in the JSON %q; want %v:\n%s", warned, out.Warnings, tt.late, stderr)
				}
				if tt.late {
					// The server's figures: a request waits for none but
					// its own prefill, so no TTFT holds the client's delay.
					if out.TTFT["max"] >= out.MaxLateMs {
						t.Errorf("ttft_ms.max = %v, want it below the client's lateness %v", out.TTFT["max"], out.MaxLateMs)
					}
				} else if out.MaxLateMs != 0 {
					t.Errorf("max_lateness_ms = %v, want 0 on virtual time without a cap", out.MaxLateMs)
				}
			})
		})
	}
}

func TestBenchInterruptedPrintsWhatWasMeasured(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Closed loop, 2 clients, requests of about 0.5s: interrupting at
		// 1.2s leaves 4 done and 2 in flight.
		ctx, cancel := context.WithTimeout(t.Context(), 1200*time.Millisecond)
		defer cancel()
		out := benchJSON(t, ctx, 130, "--model", "llama-3.2-1b", "--requests", "100", "--concurrency", "2",
			"--prompt-tokens", "64", "--max-tokens", "100")
		if !out.Interrupted {
			t.Errorf("interrupted = false, want true")
		}
		if *out.Requests < 1 || *out.Requests >= 100 {
			t.Errorf("requests = %v, want some but not all of 100", *out.Requests)
		}
		if *out.Failed != 0 {
			t.Errorf("failed = %v, want 0: requests cut off by the interruption are not failures", *out.Failed)
		}
		if out.Abandoned != 2 {
			t.Errorf("abandoned = %d, want 2 (one per client)", out.Abandoned)
		}
	})
}

func TestBenchTextReport(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		plot := filepath.Join(t.TempDir(), "lat.svg")
		code, stdout, stderr := bench(t, t.Context(), "--model", "llama-3.2-1b", "--requests", "6", "--concurrency", "3",
			"--rate", "20", "--max-tokens", "8", "--slo-ttft", "1ms", "--plot", plot)
		if code != 0 {
			t.Fatalf("exit = %d, want 0 (stderr %q)", code, stderr)
		}
		for _, want := range []string{"embedded simulator: llama-3.2-1b", "Poisson arrivals at 20/s", "TTFT ≤ 1ms",
			"TTFT", "TPOT", "ITL", "E2E", "0 of 6 met the SLO", "client: ", "plot written to"} {
			if !strings.Contains(stdout, want) {
				t.Errorf("report lacks %q:\n%s", want, stdout)
			}
		}
		b, err := os.ReadFile(plot)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, []byte("<svg")) || !bytes.Contains(b, []byte("Time to first token")) {
			t.Errorf("%s is not an SVG with the TTFT panel (%d bytes)", plot, len(b))
		}
	})
}

func TestBenchPNGPlot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		plot := filepath.Join(t.TempDir(), "lat.png")
		if code, _, stderr := bench(t, t.Context(), "--model", "llama-3.2-1b", "--requests", "4", "--max-tokens", "8", "--json", "--plot", plot); code != 0 {
			t.Fatalf("exit = %d, want 0 (stderr %q)", code, stderr)
		}
		b, err := os.ReadFile(plot)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) {
			t.Errorf("%s does not start with the PNG signature", plot)
		}
	})
}

func TestBenchWrongURLFailsFast(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	start := time.Now()
	code, stdout, stderr := bench(t, t.Context(), "--base-url", "http://"+addr+"/v1", "--model", "m", "--requests", "1000")
	if code != 1 {
		t.Errorf("exit = %d, want 1", code)
	}
	if stdout != "" {
		t.Errorf("stdout = %q, want nothing", stdout)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if len(lines) != 1 || !strings.Contains(stderr, "cannot reach http://"+addr+"/v1") || !strings.Contains(stderr, "refused") {
		t.Errorf("stderr = %q, want one line saying the URL cannot be reached (connection refused)", stderr)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("bench took %v to give up, want it to fail fast", d)
	}
}

func TestBenchCountsServerErrors(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	const key = "sk-test-do-not-print-0123456789"
	t.Setenv("OPENAI_API_KEY", key)
	unauthorized := unauthorizedServer(t, func(*http.Request) string { return "Incorrect API key provided" })
	sim := simulate.StartLoopback(t, simulate.WithModel("sim", &simulate.Fixed{TTFT: time.Millisecond, ITL: time.Millisecond}))
	broken := simulate.StartLoopback(t, simulate.WithModel("sim", &simulate.Fixed{TTFT: time.Millisecond, ITL: time.Millisecond}),
		simulate.WithFaults(simulate.Faults{Malformed: 1}))

	tests := []struct {
		name    string
		url     string
		model   string
		wantErr string
	}{
		{"401 unauthorized", unauthorized.URL + "/v1", "m", "401"},
		{"404 unknown model", sim.URL, "no-such-model", "404"},
		{"malformed stream", broken.URL, "sim", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := bench(t, t.Context(), "--json", "--base-url", tt.url, "--model", tt.model,
				"--requests", "5", "--concurrency", "2", "--max-tokens", "4")
			if code != 1 {
				t.Errorf("exit = %d, want 1 (no request completed)", code)
			}
			if strings.Contains(stdout+stderr, key) {
				t.Errorf("the API key appears in the output")
			}
			var out benchOut
			if err := json.Unmarshal([]byte(stdout), &out); err != nil {
				t.Fatalf("decoding the JSON report: %v\n%s", err, stdout)
			}
			if *out.Failed != 5 || *out.Completed != 0 {
				t.Errorf("failed, completed = %v, %v, want 5, 0", *out.Failed, *out.Completed)
			}
			var n int64
			for _, c := range out.Errors {
				n += c
			}
			if n != 5 {
				t.Errorf("errors = %v, want 5 counted", out.Errors)
			}
			if tt.wantErr != "" && out.Errors[tt.wantErr] != 5 {
				t.Errorf("errors = %v, want %s=5", out.Errors, tt.wantErr)
			}
		})
	}
}

// TestBenchSaysWhyNoRequestCompleted: when every request fails, the last
// line says what the server answered (a prompt past the model's context,
// a key it refused, quoted without the key) or that --timeout passed,
// not only that no request completed.
func TestBenchSaysWhyNoRequestCompleted(t *testing.T) {
	const key = "sk-test-quoted-0123456789abcdef"
	t.Setenv("OPENAI_API_KEY", key)
	echo := unauthorizedServer(t, func(*http.Request) string { return "Incorrect API key provided: " + key })
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"prompt past the context", []string{"--prompt-tokens", "200000"}, "no request completed; the first failed with 400 Bad Request: This model's maximum context length is 131072 tokens"},
		{"key refused", []string{"--base-url", echo.URL + "/v1", "--model", "m"}, "no request completed; the first failed with 401 Unauthorized: Incorrect API key provided: [API key]"},
		{"timeout", []string{"--timeout", "100ms"}, "no request completed within --timeout 100ms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				args := append([]string{"--requests", "2", "--concurrency", "1"}, tc.args...)
				code, stdout, stderr := bench(t, t.Context(), args...)
				if code != 1 || !strings.Contains(stderr, tc.want) {
					t.Errorf("bench %q = exit %d, stderr %q; want 1 and %q", args, code, stderr, tc.want)
				}
				if strings.Contains(stdout+stderr, "0123456789abcdef") {
					t.Errorf("the API key appears in the output: %q", stderr)
				}
			})
		})
	}
}

func TestBenchRejectsBadFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"zero requests", []string{"--requests", "0"}, "--requests"},
		{"negative rate", []string{"--rate", "-1"}, "--rate"},
		{"closed loop without clients", []string{"--concurrency", "0"}, "--concurrency"},
		{"zero timeout", []string{"--timeout", "0s"}, "--timeout"},
		{"plot format", []string{"--plot", "lat.jpg"}, ".png or .svg"},
		{"hardware flag with a URL", []string{"--base-url", "http://localhost:1/v1", "--gpu", "h100-sxm"}, "--gpu"},
		{"not a URL", []string{"--base-url", "localhost:8000"}, "http://"},
		{"unknown gpu", []string{"--gpu", "no-such-gpu"}, "no-such-gpu"},
		{"stray argument", []string{"extra"}, "unexpected"},
		{"sessions × turns past any memory (the product wrapped to 0: out of memory)", []string{"--sessions", "4611686018427387904", "--turns", "4"}, "--sessions"},
		{"negative sessions (ignored: a plain run)", []string{"--sessions", "-1"}, "--sessions"},
		{"sessions with a rate search (ignored)", []string{"--sessions", "2", "--find-max-rate", "--slo-ttft", "150ms"}, "--find-max-rate"},
		{"an attainment without a rate search (ignored)", []string{"--slo-attainment", "2"}, "--find-max-rate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := bench(t, t.Context(), tt.args...)
			if code != 2 {
				t.Errorf("bench %q exit = %d, want 2", tt.args, code)
			}
			if stdout != "" {
				t.Errorf("bench %q stdout = %q, want nothing", tt.args, stdout)
			}
			if !strings.Contains(stderr, tt.want) {
				t.Errorf("bench %q stderr = %q, want it to mention %q", tt.args, stderr, tt.want)
			}
		})
	}
}

func TestBenchTimeoutsAreCountedAndWarmupIsNot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// 70B on one H100 does not fit; on two, 128 tokens take ~4 s: a
		// 1 s timeout ends every request.
		out := benchJSON(t, t.Context(), 1, "--model", "llama-3.1-70b", "--gpus", "2", "--requests", "6",
			"--concurrency", "3", "--max-tokens", "128", "--timeout", "1s", "--warmup", "2")
		if *out.Requests != 6 || *out.Failed != 6 {
			t.Errorf("requests, failed = %v, %v, want 6, 6 (warm-up requests not counted)", *out.Requests, *out.Failed)
		}
		if out.Errors["timeout"] != 6 {
			t.Errorf("errors = %v, want timeout=6", out.Errors)
		}
	})
}

func TestBenchPicksTheServersModel(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	sim := simulate.StartLoopback(t, simulate.WithModel("only-model", &simulate.Fixed{TTFT: time.Millisecond, ITL: time.Millisecond}))
	code, stdout, stderr := bench(t, t.Context(), "--base-url", sim.URL, "--requests", "3", "--max-tokens", "4")
	if code != 0 {
		t.Fatalf("exit = %d, want 0 (stderr %q)", code, stderr)
	}
	if !strings.Contains(stdout, "model     only-model") || !strings.Contains(stdout, "3 completed, 0 failed") {
		t.Errorf("report does not show 3 requests to only-model:\n%s", stdout)
	}
}

func TestBenchDetectsABufferingProxy(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	// Short replies, so that each buffered response arrives in one read
	// even on a slow machine, after a long silence.
	sim := simulate.StartLoopback(t, simulate.WithModel("sim", &simulate.Fixed{TTFT: 200 * time.Millisecond, ITL: 5 * time.Millisecond}),
		simulate.WithBuffering(true))
	out := benchJSON(t, t.Context(), 0, "--base-url", sim.URL, "--model", "sim", "--requests", "4", "--concurrency", "2", "--max-tokens", "8")
	if out.Detections["buffering_proxy"] != 4 {
		t.Errorf("detections = %v, want buffering_proxy=4: every stream arrived in one burst", out.Detections)
	}
}

func TestPlotData(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	ts := []*tokenpace.Timing{
		// 4 tokens in 4 chunks, first after 100 ms.
		{Sent: t0, Chunks: []time.Time{at(100), at(110), at(130), at(160)}, OutputTokens: 4},
		// 6 tokens in 2 chunks, first after 300 ms.
		{Sent: at(50), Chunks: []time.Time{at(350), at(1000)}, OutputTokens: 6},
		// No token: not plotted.
		{Sent: at(60), Err: context.DeadlineExceeded},
	}
	ttft, itl, tput := plotData(ts)
	if want := []float64{100, 300}; !slices.Equal(ttft, want) {
		t.Errorf("TTFTs = %v, want %v", ttft, want)
	}
	if want := []float64{10, 20, 30, 650}; !slices.Equal(itl, want) {
		t.Errorf("ITLs = %v, want %v", itl, want)
	}
	// Every output token lands in one bin: the bins integrate to 10.
	var tokens float64
	width := tput[1].X - tput[0].X
	for _, p := range tput {
		tokens += p.Y * width
	}
	if math.Abs(tokens-10) > 1e-9 {
		t.Errorf("throughput bins hold %v tokens, want 10", tokens)
	}
}

func TestBenchAPIKeyFromTheNamedVariable(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	const key = "sk-named-variable-0123456789"
	t.Setenv("TOKENPACE_TEST_KEY", key)
	t.Setenv("OPENAI_API_KEY", "sk-not-this-one")
	sim, err := simulate.NewServer(simulate.WithModel("m", &simulate.Fixed{TTFT: time.Millisecond, ITL: time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+key {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"error":{"message":"bad key","type":"invalid_request_error"}}`))
			return
		}
		sim.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)

	code, stdout, stderr := bench(t, t.Context(), "--base-url", srv.URL+"/v1", "--api-key-env", "TOKENPACE_TEST_KEY",
		"--model", "m", "--requests", "3", "--max-tokens", "4")
	if code != 0 || !strings.Contains(stdout, "3 completed, 0 failed") {
		t.Errorf("exit = %d, want 0 and 3 requests completed with the key from TOKENPACE_TEST_KEY:\n%s%s", code, stdout, stderr)
	}
	if strings.Contains(stdout+stderr, key) {
		t.Errorf("the API key appears in the output")
	}

	code, _, stderr = bench(t, t.Context(), "--base-url", srv.URL+"/v1", "--api-key-env", "TOKENPACE_TEST_UNSET")
	if code != 2 || !strings.Contains(stderr, "TOKENPACE_TEST_UNSET is empty") {
		t.Errorf("with an unset variable: exit %d, stderr %q; want 2 and a message naming the variable", code, stderr)
	}
}

// TestBenchWritesTheReportWhenNothingCompleted: against a server that
// answers every request with an error, --plot has nothing to draw. That
// stopped bench before the HTML report was written, with "plot: no
// request produced a token" as the only reason given; the report is now
// written, and the exit says that no request completed.
func TestBenchWritesTheReportWhenNothingCompleted(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":{"message":"no","type":"invalid_request_error"}}`))
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	report, svg := filepath.Join(dir, "report.html"), filepath.Join(dir, "plot.svg")
	code, _, stderr := bench(t, t.Context(), "--base-url", srv.URL+"/v1", "--model", "m", "--requests", "3",
		"--report", report, "--plot", svg)
	if code != 1 || !strings.Contains(stderr, "no request completed") {
		t.Errorf("exit %d, stderr %q; want 1 and \"no request completed\"", code, stderr)
	}
	if _, err := os.Stat(report); err != nil {
		t.Errorf("report: %v, want it written", err)
	}
}

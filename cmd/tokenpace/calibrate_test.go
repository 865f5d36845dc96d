package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/metrics"
	"github.com/tokenpace/tokenpace/simulate"
	"github.com/tokenpace/tokenpace/simulate/plan"
)

func calibrate(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = runCalibrate(t.Context(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// deploymentX is a deployment whose constants are not the class defaults:
// what calibrate has to find from bench runs.
var deploymentX = []string{"--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--mbu", "0.55", "--mfu", "0.3", "--step-overhead", "3ms"}

// benchToFile benches the embedded simulator serving deployment X at one
// load (a closed loop of conc clients sending requests in all) and writes
// its JSON report.
func benchToFile(t *testing.T, path string, prompt, conc, requests string) benchOut {
	t.Helper()
	args := append([]string{"--json", "--requests", requests, "--concurrency", conc, "--prompt-tokens", prompt, "--max-tokens", "64"}, deploymentX...)
	code, stdout, stderr := bench(t, t.Context(), args...)
	if code != 0 {
		t.Fatalf("bench %q exit %d: %s", args, code, stderr)
	}
	if err := os.WriteFile(path, []byte(stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	var out benchOut
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCalibrateRoundTrip benches the simulator serving deployment X at two
// loads on virtual time, calibrates a deployment file from the two reports,
// and checks that predict with that file gives X's measured TTFT and TPOT
// at a third load within 5 %.
func TestCalibrateRoundTrip(t *testing.T) {
	dir := t.TempDir()
	runs := []string{filepath.Join(dir, "run1.json"), filepath.Join(dir, "run2.json")}
	deploy := filepath.Join(dir, "deploy.json")
	var third benchOut
	synctest.Test(t, func(t *testing.T) {
		benchToFile(t, runs[0], "256", "1", "3")
		benchToFile(t, runs[1], "2048", "16", "16")
		third = benchToFile(t, filepath.Join(dir, "run3.json"), "1024", "4", "12")
	})
	code, stdout, stderr := calibrate(t, "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--from", runs[0], "--from", runs[1], "--out", deploy)
	if code != 0 {
		t.Fatalf("calibrate exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "residuals:") || !strings.Contains(stdout, "MBU") || strings.Contains(stdout, "misfit") {
		t.Errorf("calibrate output lacks the fit and its residuals, or says a fit to the model's own runs misses:\n%s", stdout)
	}
	code, out, stderr := predict(t, "--json", "--deployment", deploy, "--prompt-tokens", "1024", "--concurrency", "4", "--requests", "12", "--output-tokens", "64")
	if code != 0 {
		t.Fatalf("predict --deployment exit %d: %s", code, stderr)
	}
	var p map[string]any
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	// bench's embedded simulator serves the file, and its prediction is
	// the file's.
	var served benchOut
	synctest.Test(t, func(t *testing.T) {
		served = benchJSON(t, t.Context(), 0, "--deployment", deploy, "--requests", "12", "--concurrency", "4", "--prompt-tokens", "1024", "--max-tokens", "64")
	})
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"bench --deployment ttft_ms.mean", served.TTFT["mean"], p["ttft_ms"].(float64)},
		{"bench --deployment tpot_ms.mean", served.TPOT["mean"], p["tpot_ms"].(float64)},
	} {
		if e := (c.got - c.want) / c.want; math.Abs(e) > 0.01 {
			t.Errorf("%s = %.2f, want predict --deployment's %.2f within 1%%", c.name, c.got, c.want)
		}
	}
	for _, c := range []struct {
		name          string
		got, measured float64
	}{
		{"ttft_ms", p["ttft_ms"].(float64), third.TTFT["mean"]},
		{"tpot_ms", p["tpot_ms"].(float64), third.TPOT["mean"]},
	} {
		if e := (c.got - c.measured) / c.measured; math.Abs(e) > 0.05 {
			t.Errorf("predict --deployment %s at the third load = %.2f, bench of X measured %.2f: error %+.1f%%, want within 5%%", c.name, c.got, c.measured, 100*e)
		} else {
			t.Logf("%s at the third load: predicted %.2f, measured %.2f (%+.2f%%)", c.name, c.got, c.measured, 100*e)
		}
	}
}

func TestCalibrateRejects(t *testing.T) {
	dir := t.TempDir()
	one := filepath.Join(dir, "one.json")
	synctest.Test(t, func(t *testing.T) { benchToFile(t, one, "256", "1", "1") })
	junk := filepath.Join(dir, "junk.json")
	if err := os.WriteFile(junk, []byte(`{"hello": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.json")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no runs", []string{"--out", out}, 2, "--from"},
		{"no out", []string{"--from", one}, 2, "--out"},
		{"fits what it is told", []string{"--from", one, "--out", out, "--mbu", "0.5"}, 2, "what calibrate fits"},
		{"one load", []string{"--from", one, "--out", out}, 1, "not well-posed"},
		{"not a report", []string{"--from", junk, "--from", one, "--out", out}, 1, "not a tokenpace bench --json report"},
		{"missing file", []string{"--from", filepath.Join(dir, "nope.json"), "--out", out}, 1, "no such file"},
		// Latencies past an hour are recorded as an hour.
		{"timeout past the figures", []string{"--base-url", "http://127.0.0.1:1/v1", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--timeout", "2h", "--out", out}, 2, "--timeout 2h0m0s: want at most 1h0m0s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := calibrate(t, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("calibrate %q = exit %d, stderr %q; want exit %d mentioning %q", tc.args, code, stderr, tc.code, tc.want)
			}
		})
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a failed calibrate wrote %s", out)
	}
}

func TestDeploymentFileRejects(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content string
		extra         []string
		want          string
	}{
		{"not JSON", "nonsense", nil, "not a deployment file"},
		{"unknown field", `{"version": 1, "deployment": {}, "extra": 1}`, nil, "unknown field"},
		{"wrong version", `{"version": 7, "deployment": {}}`, nil, "version 7"},
		{"impossible", `{"version": 1, "deployment": {"MBU": 3}}`, nil, "MBU"},
		{"with other flags", `{"version": 1, "deployment": {}}`, []string{"--gpu", "h100"}, "exclude each other"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".json")
			if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, stderr := predict(t, append([]string{"--deployment", path}, tc.extra...)...)
			if code == 0 || !strings.Contains(stderr, tc.want) {
				t.Errorf("predict --deployment (%s) = exit %d, stderr %q; want a failure mentioning %q", tc.name, code, stderr, tc.want)
			}
		})
	}
}

// TestCalibrateBoundsTheSimulatedRun checks that a long bench run is
// simulated as a few waves of its closed loop, not request by request.
func TestCalibrateBoundsTheSimulatedRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "long.json")
	report := `{"concurrency": 8, "planned_requests": 100000, "rate": 0, "prompt_tokens": 512, "max_tokens": 256,
		"completed": 100000, "output_tokens": 25600000, "ttft_ms": {"mean": 40}, "tpot_ms": {"mean": 9}}`
	if err := os.WriteFile(path, []byte(report), 0o644); err != nil {
		t.Fatal(err)
	}
	obs, _, err := observationsFrom(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range obs {
		s := o.Scenario
		if s.Concurrency != 8 || s.Requests < 16 || s.Requests*s.OutputTokens > maxCalibrateTokens {
			t.Errorf("observation %s: scenario %+v, want 8 clients and at least 2 waves within %d output tokens", o.Metric, s, maxCalibrateTokens)
		}
	}
}

// TestCalibrateRunsItsOwnLoads points calibrate --base-url at the
// simulator serving deployment X in memory, on virtual time: it designs
// and runs its loads, recovers X's bandwidth and tensor shares within 5 %
// (and the step overhead within its band), and predicts the two held-out
// loads within 5 %.
func TestCalibrateRunsItsOwnLoads(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		serveCalibration(t, simulate.Deployment{}, "", false)
		out := filepath.Join(t.TempDir(), "deploy.json")
		code, stdout, stderr := calibrate(t, "--base-url", "http://in-memory/v1", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--out", out)
		if code != 0 {
			t.Fatalf("calibrate --base-url exit %d: %s", code, stderr)
		}
		if !strings.Contains(stderr, "run 1/5") || !strings.Contains(stderr, "run 5/5") {
			t.Errorf("calibrate does not show its progress run by run:\n%s", stderr)
		}
		f, err := readDeploymentFile(out)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name      string
			got, want float64
		}{{"MBU", f.Deployment.MBU, 0.55}, {"MFU", f.Deployment.MFU, 0.3}} {
			if math.Abs(c.got-c.want) > 0.05*c.want {
				t.Errorf("calibrated %s = %.3f, want %.3f within 5%%:\n%s", c.name, c.got, c.want, stdout)
			}
		}
		held := stdout[strings.Index(stdout, "held-out"):]
		errs := regexp.MustCompile(`\(([+-][0-9.]+)%\)`).FindAllStringSubmatch(held, -1)
		if len(errs) != 4 {
			t.Fatalf("held-out section has %d figures, want TTFT and TPOT of 2 loads:\n%s", len(errs), stdout)
		}
		for _, m := range errs {
			if v, _ := strconv.ParseFloat(m[1], 64); math.Abs(v) > 5 {
				t.Errorf("held-out prediction off by %s%%, want within 5%%:\n%s", m[1], held)
			}
		}
		t.Log(stdout)
	})
}

// TestCalibrateCustomModelAsksTheServer checks that a calibration of a
// model described by flags requests the model the server serves: the
// first it lists, or --served-model; the simulator refuses any other name
// (404), as vLLM does.
func TestCalibrateCustomModelAsksTheServer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		listed := serveCalibration(t, simulate.Deployment{}, "served-8b", true)
		shape := []string{"--params-b", "8.030", "--layers", "32", "--hidden", "4096", "--kv-heads", "8", "--head-dim", "128", "--vocab", "128256", "--gpu", "h100-sxm"}
		code, _, stderr := calibrate(t, append([]string{"--base-url", "http://in-memory/v1"}, shape...)...)
		if code != 0 || *listed != 1 || !strings.Contains(stderr, `requesting model "served-8b"`) {
			t.Errorf("calibrate of a custom model: exit %d, %d listings; want 0, 1 and the listed model named:\n%s", code, *listed, stderr)
		}
		code, _, stderr = calibrate(t, append([]string{"--base-url", "http://in-memory/v1", "--served-model", "other"}, shape...)...)
		if code == 0 || *listed != 1 || !strings.Contains(stderr, "404") {
			t.Errorf("calibrate --served-model other: exit %d, %d listings; want a failure naming the server's 404 and no listing:\n%s", code, *listed, stderr)
		}
	})
}

// TestCalibrateSaysWhenTheModelMisses calibrates against an endpoint
// that does not behave as the model does: its prefix cache is off (as a
// server whose slots keep caches of their own, llama.cpp's, misses a
// prefix another slot holds), so the run of streams that share a cached
// prefix prefills them all. No deployment of the model fits the runs:
// calibrate says so, and what to check, instead of asking for more runs,
// and writes no deployment file.
func TestCalibrateSaysWhenTheModelMisses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		serveCalibration(t, simulate.Deployment{DisablePrefixCaching: true}, "", false)
		out := filepath.Join(t.TempDir(), "deploy.json")
		code, _, stderr := calibrate(t, "--base-url", "http://in-memory/v1", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--out", out)
		if code == 0 || !strings.Contains(stderr, "the runs do not follow the model") || !strings.Contains(stderr, "prefix cache") {
			t.Errorf("calibrate against an endpoint without a prefix cache: exit %d; want a refusal that says the runs do not follow the model and names the prefix cache:\n%s", code, stderr)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("calibrate wrote %s from a fit that misses its runs", out)
		}
	})
}

// TestCalibratePrintsItsMisses checks that a fit that misses one of its
// own runs by more than plan.Misfit says so, and says no less of other
// loads than that miss, whatever its bands alone would say.
func TestCalibratePrintsItsMisses(t *testing.T) {
	d, err := simulate.Deployment{}.Resolved()
	if err != nil {
		t.Fatal(err)
	}
	obs := simulate.Observation{Scenario: simulate.Scenario{PromptTokens: 960, OutputTokens: 64, Concurrency: 4}, Metric: simulate.MetricTTFT, Value: 100}
	for _, c := range []struct {
		miss   float64
		misfit bool
		says   string
	}{{0.05, false, "within ±5.0%"}, {-0.35, true, "within ±35.0%"}} {
		fit := plan.Calibration{Deployment: d, Spread: 0.02, Residuals: []plan.Residual{{Observation: obs, Predicted: 100 * (1 + c.miss), Error: c.miss}}}
		var out bytes.Buffer
		if err := newCalibrateFlags(io.Discard).print(&out, fit, 1, nil); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(out.String(), "misfit"); got != c.misfit || !strings.Contains(out.String(), c.says) {
			t.Errorf("fit missing its run by %+.0f%%: misfit line %v, want %v, and %q:\n%s", 100*c.miss, got, c.misfit, c.says, out.String())
		}
	}
}

// TestServedCache checks that a calibration run is fitted with the cache
// hits the server reported, not those its design assumed, when the
// server reports any.
func TestServedCache(t *testing.T) {
	s := simulate.Scenario{PromptTokens: 960, CachedTokens: 896}
	for _, c := range []struct {
		input, cached int64
		want          int
	}{
		{0, 0, 896},       // no usage: the design's
		{7680, 0, 896},    // no cached count: the design's (it may cache unsaid)
		{7680, 3584, 448}, // half the slots held the prefix
		{7680, 7680, 959}, // all of it: at most the prompt but one token
		{1000, 10, 10},    // a template's few tokens on prompts designed apart
		{7680, 7168, 896}, // as designed
	} {
		got := servedCache(s, metrics.Snapshot{InputTokens: c.input, CachedTokens: c.cached})
		if got != c.want {
			t.Errorf("servedCache(%d of %d input tokens cached) = %d, want %d", c.cached, c.input, got, c.want)
		}
	}
}

// TestCalibrateSendsFreshPrompts checks that two calibrations of one
// endpoint send prompts of their own: a server keeps what it served in
// its prompt cache (llama.cpp's host-memory cache kept a first
// calibration's prompts, and a second one measured cache hits for its
// prefills), so no prompt of the second may repeat one of the first.
func TestCalibrateSendsFreshPrompts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var sent []map[string]bool
		var seen map[string]bool
		tap := option.WithMiddleware(func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
			body, _ := io.ReadAll(req.Body)
			req.Body = io.NopCloser(bytes.NewReader(body))
			var p struct {
				Messages []struct{ Role, Content string }
			}
			if json.Unmarshal(body, &p) == nil && len(p.Messages) > 0 {
				if last := p.Messages[len(p.Messages)-1]; last.Role == "user" {
					mu.Lock()
					seen[last.Content] = true
					mu.Unlock()
				}
			}
			return next(req)
		})
		serveCalibration(t, simulate.Deployment{}, "", false, tap)
		for range 2 {
			mu.Lock()
			seen = map[string]bool{}
			sent = append(sent, seen)
			mu.Unlock()
			if code, _, stderr := calibrate(t, "--base-url", "http://in-memory/v1", "--model", "llama-3.1-8b", "--gpu", "h100-sxm"); code != 0 {
				t.Fatalf("calibrate exit %d: %s", code, stderr)
			}
		}
		repeated := 0
		for m := range sent[1] {
			if sent[0][m] {
				repeated++
			}
		}
		if len(sent[0]) < 10 || repeated > 0 {
			t.Errorf("second calibration repeated %d of the first's %d prompts, want none", repeated, len(sent[0]))
		}
	})
}

// serveCalibration serves x (whose zero MBU, MFU and step overhead are
// taken as 0.55, 0.3 and 3 ms) in memory as model name, and points
// calibrate's --base-url at it for the rest of the test, its client taking
// opts; listed counts the calls of the endpoint's model list, nil when
// the endpoint cannot list. Call it inside a synctest bubble.
func serveCalibration(t *testing.T, x simulate.Deployment, name string, list bool, opts ...option.RequestOption) (listed *int) {
	t.Helper()
	x.MBU, x.MFU = cmp.Or(x.MBU, 0.55), cmp.Or(x.MFU, 0.3)
	x.StepOverhead = cmp.Or(x.StepOverhead, 3*time.Millisecond)
	x, err := x.Resolved()
	if err != nil {
		t.Fatal(err)
	}
	e, err := simulate.NewEngine(x)
	if err != nil {
		t.Fatal(err)
	}
	sim, err := simulate.ServeInMemory(simulate.WithModel(cmp.Or(name, x.Model.Name), e))
	if err != nil {
		t.Fatal(err)
	}
	dial := dialCalibrate
	t.Cleanup(func() {
		dialCalibrate = dial
		sim.Close()
	})
	listed = new(int)
	dialCalibrate = func(string, string) (*calibrateEndpoint, error) {
		oc := openai.NewClient(append([]option.RequestOption{option.WithBaseURL(sim.BaseURL()), option.WithHTTPClient(sim.Client()), option.WithAPIKey("simulator"), option.WithMaxRetries(0)}, opts...)...)
		ep := &calibrateEndpoint{client: tokenpace.NewClient(oc), close: func() {}}
		if list {
			ep.firstModel = func(ctx context.Context) (string, error) {
				*listed++
				page, err := oc.Models.List(ctx)
				if err != nil || len(page.Data) == 0 {
					return "", fmt.Errorf("no model listed: %v", err)
				}
				return page.Data[0].ID, nil
			}
		}
		return ep, nil
	}
	return listed
}

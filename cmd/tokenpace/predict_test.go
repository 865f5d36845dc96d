package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tokenpace/tokenpace/simulate"
)

func predict(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = runPredict(args, &out, &errb)
	return code, out.String(), errb.String()
}

// predictFigure returns the figure key of predict --json args.
func predictFigure(t *testing.T, key string, args ...string) float64 {
	t.Helper()
	code, out, stderr := predict(t, append([]string{"--json"}, args...)...)
	if code != 0 {
		t.Fatalf("predict %v: exit %d, stderr %q", args, code, stderr)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	return m[key].(float64)
}

func TestPredictJSONContract(t *testing.T) {
	code, out, stderr := predict(t, "--json", "--model", "llama-3.1-8b", "--gpu", "h100", "--prompt-tokens", "2000", "--output-tokens", "100", "--concurrency", "4")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("output is not one JSON object: %v\n%s", err, out)
	}
	for _, k := range []string{"queue_ms", "prefill_ms", "ttft_ms", "itl_ms", "tpot_ms", "tps", "aggregate_tps", "e2e_ms"} {
		v, ok := m[k].(float64)
		if !ok {
			t.Errorf("JSON field %q = %v (%T), want a number", k, m[k], m[k])
			continue
		}
		if v < 0 || (k != "queue_ms" && v == 0) {
			t.Errorf("JSON field %q = %v, want positive", k, v)
		}
	}
	if b := m["bound"]; b != "memory" && b != "compute" {
		t.Errorf("JSON bound = %v, want \"memory\" or \"compute\"", b)
	}
	if ttft, q, p := m["ttft_ms"].(float64), m["queue_ms"].(float64), m["prefill_ms"].(float64); ttft < q+p-0.001 || ttft > q+p+0.001 {
		t.Errorf("ttft_ms = %v, want queue_ms + prefill_ms = %v", ttft, q+p)
	}
}

func TestPredictSeedArithmetic(t *testing.T) {
	code, out, stderr := predict(t, "--params-b", "70", "--bits", "4", "--bandwidth-gbs", "1000", "--tflops", "1000", "--memory-gb", "48", "--mbu", "1", "--prompt-tokens", "1", "--output-tokens", "2")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if want := "35 GB / 1000 GB/s = 35 ms per token ≈ 28.6 TPS"; !strings.Contains(out, want) {
		t.Errorf("predict output lacks %q:\n%s", want, out)
	}
	if !strings.Contains(out, "memory-bound") {
		t.Errorf("predict output does not say memory-bound:\n%s", out)
	}
}

func TestPredictRTTAddsToTTFT(t *testing.T) {
	get := func(args ...string) map[string]float64 {
		t.Helper()
		code, out, stderr := predict(t, append([]string{"--json"}, args...)...)
		if code != 0 {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatal(err)
		}
		return map[string]float64{"ttft": m["ttft_ms"].(float64), "e2e": m["e2e_ms"].(float64), "itl": m["itl_ms"].(float64)}
	}
	base, far := get(), get("--rtt", "80ms")
	if far["ttft"]-base["ttft"] < 79.999 || far["ttft"]-base["ttft"] > 80.001 || far["itl"] != base["itl"] {
		t.Errorf("--rtt 80ms: ttft %v → %v, itl %v → %v; want ttft +80, itl unchanged", base["ttft"], far["ttft"], base["itl"], far["itl"])
	}
}

func TestPredictRejectsBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--model", "gpt-17"}, "known: "},
		{[]string{"--gpu", "voodoo5"}, "unknown GPU"},
		{[]string{"--precision", "q3_weird"}, "unknown precision"},
		{[]string{"--model", "llama-3.1-405b"}, "do not fit"},
		{[]string{"--params-b", "-3"}, "must be positive"},
		{[]string{"--gpus", "0"}, "must be positive"},
		{[]string{"--prompt-tokens", "-1"}, "at least 1"},
		{[]string{"--cached-tokens", "1000", "--prompt-tokens", "1000"}, "less than"},
		{[]string{"--mbu", "1.5"}, "MBU"},
		{[]string{"--model", "llama-3.1-8b", "--params-b", "8"}, "exclude each other"},
		{[]string{"--bandwidth-gbs", "1000"}, "needs all of"},
		{[]string{"--layers", "10"}, "with --params-b"},
		{[]string{"--rtt", "-1s"}, "negative"},
		{[]string{"stray"}, "unexpected argument"},
		{[]string{"--runtime", "magic"}, "unknown --runtime"},
		{[]string{"--kv-policy", "pray"}, "unknown --kv-policy"},
		{[]string{"--memory-class", "sram"}, "memory class"},
		{[]string{"--arch", "tpu"}, "arch"},
		{[]string{"--interconnect", "fast"}, "interconnect"},
		{[]string{"--vector-tflops", "-1"}, "must be positive"},
		{[]string{"--max-running", "0"}, "must be positive"},
		{[]string{"--draft-tokens", "4", "--draft-acceptance", "1"}, "acceptance"},
		{[]string{"--step-overhead", "-1ms"}, "negative"},
		// Said in nanoseconds as a float: "got -1e+09".
		{[]string{"--interconnect-latency", "-1s"}, "--interconnect-latency must be positive, got -1s"},
		{[]string{"--interconnect-latency", "0s"}, "--interconnect-latency must be positive, got 0s"},
	} {
		code, _, stderr := predict(t, tc.args...)
		if code == 0 || !strings.Contains(stderr, tc.want) {
			t.Errorf("predict %v: exit %d, stderr %q; want non-zero and %q", tc.args, code, stderr, tc.want)
		}
	}
}

func TestDeploymentFlagsDefault(t *testing.T) {
	code, out, stderr := predict(t, "--json")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	if m["model"] != "llama-3.1-8b" || m["gpu"] != "h100-sxm" || m["precision"] != "bf16" {
		t.Errorf("default deployment = %v on %v at %v, want llama-3.1-8b on h100-sxm at bf16", m["model"], m["gpu"], m["precision"])
	}
}

func TestPredictSpeculativeAndKVFlags(t *testing.T) {
	tps := func(args ...string) float64 {
		t.Helper()
		code, out, stderr := predict(t, append([]string{"--json", "--prompt-tokens", "100", "--output-tokens", "400"}, args...)...)
		if code != 0 {
			t.Fatalf("predict %v: exit %d, stderr %q", args, code, stderr)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatal(err)
		}
		return m["tps"].(float64)
	}
	plain := tps()
	if fast := tps("--draft-tokens", "4", "--draft-acceptance", "0.8"); fast < 2.5*plain {
		t.Errorf("TPS with k=4, α=0.8 = %.1f, plain %.1f: want about 3.36× faster", fast, plain)
	}
	// 32 streams of 500 tokens hold 2 GB of KV cache: in VRAM it costs
	// little, over the host link it dominates.
	if full, roomy := tps("--kv-tokens", "160", "--concurrency", "32"), tps("--concurrency", "32"); full > roomy/3 {
		t.Errorf("TPS of 32 streams with a 160-token KV cache = %.1f, with room %.1f: want the offload collapse", full, roomy)
	}
}

// TestPredictStatesItsErrorBand checks that predict prints the
// cross-validated band of the deployment's class beside its figures and in
// --json, and that the band follows the runtime class.
func TestPredictStatesItsErrorBand(t *testing.T) {
	for _, tc := range []struct {
		args               []string
		firstToken, decode string
	}{
		{[]string{"--model", "llama-3.1-8b"}, "vllm first token", "vllm decode"},
		{[]string{"--precision", "q4_k_m", "--gpu", "4090"}, "llama.cpp first token", "llama.cpp decode"},
		{[]string{"--runtime", "tgi"}, "eager first token", "eager decode"},
	} {
		code, out, stderr := predict(t, append([]string{"--json"}, tc.args...)...)
		if code != 0 {
			t.Fatalf("predict %q exit %d: %s", tc.args, code, stderr)
		}
		var m struct {
			ErrorBand map[string]struct {
				Class  string  `json:"class"`
				Rows   int     `json:"published_measurements"`
				Median float64 `json:"median_abs_error"`
				P90    float64 `json:"p90_abs_error"`
			} `json:"error_band"`
			HeldOut map[string]struct {
				Class  string  `json:"class"`
				Rows   int     `json:"published_measurements"`
				Median float64 `json:"median_abs_error"`
				P90    float64 `json:"p90_abs_error"`
			} `json:"held_out_band"`
		}
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatal(err)
		}
		for kind, want := range map[string]string{"first_token": tc.firstToken, "decode": tc.decode} {
			b := m.ErrorBand[kind]
			if b.Class != want || b.Rows < 4 || !(b.Median > 0 && b.Median <= b.P90 && b.P90 < 5) {
				t.Errorf("predict %q error_band.%s = %+v, want class %q with 0 < median ≤ p90 < 500%%", tc.args, kind, b, want)
			}
			if h := m.HeldOut[kind]; !strings.Contains(h.Class, "held out") || h.Rows < 4 || !(h.Median > 0 && h.Median <= h.P90) {
				t.Errorf("predict %q held_out_band.%s = %+v, want the held-out rows' band", tc.args, kind, h)
			}
		}
		code, text, _ := predict(t, tc.args...)
		if code != 0 {
			t.Fatalf("predict %q exit %d", tc.args, code)
		}
		for _, line := range strings.Split(text, "\n") {
			f := strings.Fields(line)
			if len(f) > 0 && (f[0] == "TTFT" || f[0] == "TPOT") && !strings.Contains(line, "p90") {
				t.Errorf("predict %q line %q has no error band beside it", tc.args, line)
			}
		}
		if !strings.Contains(text, "on measurements no fit saw") {
			t.Errorf("predict %q text does not state the held-out band:\n%s", tc.args, text)
		}
		if !strings.Contains(text, tc.decode) {
			t.Errorf("predict %q text does not name the class %q:\n%s", tc.args, tc.decode, text)
		}
	}
}

// TestPredictSeedExample is the seed's own example as a user types it: the
// weights' read is 35 ms ≈ 28.6 TPS at full bandwidth, and with no host
// overhead and no KV cache to read the whole step is that read — the
// dequantization of the 4-bit weights hides behind it.
func TestPredictSeedExample(t *testing.T) {
	seed := []string{"--params-b", "70", "--bits", "4", "--bandwidth-gbs", "1000", "--tflops", "165", "--memory-gb", "48", "--mbu", "1"}
	code, out, stderr := predict(t, seed...)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if want := "35 GB / 1000 GB/s = 35 ms per token ≈ 28.6 TPS"; !strings.Contains(out, want) {
		t.Errorf("predict %v lacks %q:\n%s", seed, want, out)
	}
	code, out, stderr = predict(t, append(seed, "--prompt-tokens", "1", "--output-tokens", "2", "--step-overhead", "0")...)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	for _, want := range []string{"decode step    35.00 ms (memory-bound)", "TPS            28.6 tokens/s per stream", "dequantization (fused, overlaps the memory read)"} {
		if !strings.Contains(out, want) {
			t.Errorf("predict %v --prompt-tokens 1 --output-tokens 2 --step-overhead 0 lacks %q:\n%s", seed, want, out)
		}
	}
}

func TestPredictRuntimeNames(t *testing.T) {
	for _, name := range []string{"trtllm", "trt-llm", "tensorrt-llm", "sglang", "tgi", "mlc", "vllm", "llama.cpp", "llamacpp", "ollama"} {
		if code, _, stderr := predict(t, "--runtime", name, "--json"); code != 0 {
			t.Errorf("predict --runtime %s: exit %d, stderr %q; want accepted", name, code, stderr)
		}
	}
	code, out, stderr := predict(t, "--runtime", "trtllm2")
	if code == 0 || out != "" {
		t.Fatalf("predict --runtime trtllm2: exit %d, stdout %q; want an error and no prediction", code, out)
	}
	for _, name := range []string{"trtllm", "trt-llm", "tensorrt-llm", "sglang", "tgi", "mlc", "vllm", "llama.cpp", "ollama", "eager"} {
		if !strings.Contains(stderr, name) {
			t.Errorf("predict --runtime trtllm2: stderr %q does not list %s", stderr, name)
		}
	}
}

// TestPredictGivenAndDefaulted checks that predict says which hardware
// figures were given and which defaulted, and that the catalog's figures
// can be given as flags.
func TestPredictGivenAndDefaulted(t *testing.T) {
	code, out, stderr := predict(t, "--model", "llama-3.1-70b", "--gpus", "4", "--bandwidth-gbs", "3350", "--tflops", "989", "--memory-gb", "80", "--memory-class", "hbm")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	given := out[strings.Index(out, "given:"):strings.Index(out, "defaulted")]
	defaulted := out[strings.Index(out, "defaulted"):strings.Index(out, "how:")]
	for _, want := range []string{"--bandwidth-gbs 3350", "--memory-class hbm", "--gpus 4"} {
		if !strings.Contains(given, want) {
			t.Errorf("given lacks %q:\n%s", want, given)
		}
	}
	for _, want := range []string{"interconnect = 450 GB/s (nvlink-class)", "vector-tflops = ", "arch = hopper", "mbu = ", "step-overhead = "} {
		if !strings.Contains(defaulted, want) {
			t.Errorf("defaulted lacks %q:\n%s", want, defaulted)
		}
	}
	if strings.Contains(defaulted, "memory-class") {
		t.Errorf("defaulted lists the given memory class:\n%s", defaulted)
	}

	ttft := func(args ...string) float64 {
		t.Helper()
		return predictFigure(t, "ttft_ms", append([]string{"--model", "llama-3.1-70b", "--gpus", "4", "--prompt-tokens", "2048"}, args...)...)
	}
	catalog := ttft("--gpu", "h100-sxm")
	flags := ttft("--bandwidth-gbs", "3350", "--tflops", "989", "--fp8-tflops", "1979", "--int8-tops", "1979", "--memory-gb", "80",
		"--memory-class", "hbm", "--arch", "hopper", "--vector-tflops", "66.9", "--host-link-gbs", "64", "--interconnect", "450")
	if catalog <= 0 || flags < 0.98*catalog || flags > 1.02*catalog {
		t.Errorf("TP4 70B TTFT from the H100's datasheet flags = %.1f ms, want the catalog's %.1f ms within 2%%", flags, catalog)
	}
	overPCIe := ttft("--gpu", "h100-sxm", "--interconnect", "pcie")
	if !(overPCIe > 1.2*catalog) {
		t.Errorf("TP4 70B TTFT with --gpu h100-sxm --interconnect pcie = %.1f ms, want well above NVLink's %.1f ms", overPCIe, catalog)
	}
	// A measured all-reduce bus bandwidth near the link's own (share 1)
	// takes back part of what the class's share (under 1) costs.
	if full := ttft("--gpu", "h100-sxm", "--interconnect", "pcie", "--all-reduce-share", "1"); !(full < overPCIe) {
		t.Errorf("TP4 70B TTFT over PCIe with --all-reduce-share 1 = %.1f ms, want under the class share's %.1f ms", full, overPCIe)
	}
}

// TestPredictAllReduceShare checks that the share of the link an
// all-reduce reaches is listed where it applies (tensor parallel), as a
// given or a defaulted figure, and that a share outside (0, 1] is refused.
func TestPredictAllReduceShare(t *testing.T) {
	code, out, stderr := predict(t, "--gpu", "l40s", "--gpus", "4", "--model", "llama-3.1-70b", "--precision", "fp8")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if want := "all-reduce-share = 0."; !strings.Contains(out, want) || !strings.Contains(out, "for a pcie link") {
		t.Errorf("L40S TP4: output lacks the defaulted %q for a pcie link:\n%s", want, out)
	}
	code, out, _ = predict(t, "--gpu", "l40s", "--gpus", "4", "--model", "llama-3.1-70b", "--precision", "fp8", "--all-reduce-share", "0.25")
	if code != 0 || !strings.Contains(out, "--all-reduce-share 0.25") || !strings.Contains(out, "at 0.25 of 32 GB/s") {
		t.Errorf("--all-reduce-share 0.25: exit %d, output lacks it as given and in the arithmetic:\n%s", code, out)
	}
	if _, out, _ := predict(t, "--gpu", "l40s"); strings.Contains(out, "all-reduce") {
		t.Errorf("one GPU: output names an all-reduce:\n%s", out)
	}
	for _, v := range []string{"0", "-0.5", "1.5"} {
		if code, _, stderr := predict(t, "--gpu", "l40s", "--gpus", "2", "--all-reduce-share", v); code == 0 || !strings.Contains(stderr, "all-reduce") {
			t.Errorf("--all-reduce-share %s: exit %d, stderr %q; want a refusal naming it", v, code, stderr)
		}
	}
}

// TestPredictModelFromFlags checks that a catalog model described by its
// config's figures is the catalog model: with --vocab (and
// --tied-embeddings where the model ties them) the two predictions agree
// within 2 %, and without it the embedding is streamed and multiplied
// for every prompt token, which a prefill-bound prompt shows.
func TestPredictModelFromFlags(t *testing.T) {
	ttft := func(args ...string) float64 {
		t.Helper()
		return predictFigure(t, "ttft_ms", append([]string{"--gpu", "h100-sxm", "--prompt-tokens", "4096", "--output-tokens", "2"}, args...)...)
	}
	for _, c := range []struct {
		model string
		shape []string
	}{
		{"llama-3.1-8b", []string{"--params-b", "8.030", "--layers", "32", "--hidden", "4096", "--kv-heads", "8", "--head-dim", "128", "--vocab", "128256"}},
		{"llama-3.2-1b", []string{"--params-b", "1.236", "--layers", "16", "--hidden", "2048", "--kv-heads", "8", "--head-dim", "64", "--vocab", "128256", "--tied-embeddings"}},
	} {
		catalog, flags := ttft("--model", c.model), ttft(c.shape...)
		if flags < 0.98*catalog || flags > 1.02*catalog {
			t.Errorf("%s TTFT from its config's flags = %.2f ms, want the catalog's %.2f ms within 2%%", c.model, flags, catalog)
		}
	}
	withVocab := ttft("--params-b", "8.030", "--layers", "32", "--hidden", "4096", "--kv-heads", "8", "--head-dim", "128", "--vocab", "128256")
	without := ttft("--params-b", "8.030", "--layers", "32", "--hidden", "4096", "--kv-heads", "8", "--head-dim", "128")
	if !(without > 1.1*withVocab) {
		t.Errorf("8B TTFT without --vocab = %.2f ms, want over 1.1 × %.2f ms (embedding and every prompt token's logits counted)", without, withVocab)
	}
	code, out, _ := predict(t, "--params-b", "8")
	if code != 0 || !strings.Contains(out, "vocab = not given") {
		t.Errorf("predict --params-b 8 (exit %d) does not say the vocabulary was not given:\n%s", code, out)
	}
	if code, _, stderr := predict(t, "--vocab", "32000"); code == 0 || !strings.Contains(stderr, "with --params-b") {
		t.Errorf("predict --vocab 32000: exit %d, stderr %q; want a refusal naming --params-b", code, stderr)
	}
}

// TestPredictDeploymentFileDefaultsNothing checks that predict with a
// deployment file, which gives every figure, prints no heading of
// defaulted figures with nothing under it, and still says what it was
// given and how it reckoned.
func TestPredictDeploymentFileDefaultsNothing(t *testing.T) {
	gpu, err := simulate.LookupGPU("h100-sxm")
	if err != nil {
		t.Fatal(err)
	}
	model, err := simulate.LookupModel("llama-3.1-8b")
	if err != nil {
		t.Fatal(err)
	}
	d, err := simulate.Deployment{GPU: gpu, GPUs: 1, Model: model, Precision: simulate.BF16}.Resolved()
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(deploymentFile{Version: deploymentFileVersion, Deployment: d})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "deploy.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := predict(t, "--deployment", path)
	if code != 0 {
		t.Fatalf("predict --deployment exit %d, stderr %q", code, stderr)
	}
	if strings.Contains(out, "defaulted") {
		t.Errorf("predict --deployment prints a heading of defaulted figures, with every figure given:\n%s", out)
	}
	for _, want := range []string{"given:\n  --deployment " + path + " (every figure)\n", "\nhow:\n  model: llama-3.1-8b"} {
		if !strings.Contains(out, want) {
			t.Errorf("predict --deployment output lacks %q:\n%s", want, out)
		}
	}
}

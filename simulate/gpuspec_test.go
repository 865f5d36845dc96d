package simulate_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/tokenpace/tokenpace/simulate"
)

// TestGPUSpecRebuildsCatalog rebuilds every catalog GPU from its datasheet
// figures, as the hardware flags give them, and predicts decode, TTFT and
// a tensor-parallel run on both: the two paths must agree within 2 %.
func TestGPUSpecRebuildsCatalog(t *testing.T) {
	small, err := simulate.LookupModel("llama-3.2-1b")
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range simulate.GPUs() {
		flags, as, err := g.Spec().GPU()
		if err != nil {
			t.Fatalf("%s: Spec().GPU() = %v", g.Name, err)
		}
		if len(as) != 1 || as[0].Field != "interconnect-latency" {
			t.Errorf("%s: Spec().GPU() defaulted %v, want only the interconnect latency", g.Name, as)
		}
		for _, c := range []struct {
			name string
			gpus int
			prec simulate.Precision
			s    simulate.Scenario
			m    simulate.Metric
		}{
			{"decode", 1, simulate.BF16, simulate.Scenario{PromptTokens: 128, OutputTokens: 64}, simulate.MetricTPOT},
			{"int4 decode", 1, simulate.INT4, simulate.Scenario{PromptTokens: 128, OutputTokens: 64}, simulate.MetricTPOT},
			{"TTFT", 1, simulate.BF16, simulate.Scenario{PromptTokens: 2048, OutputTokens: 1}, simulate.MetricTTFT},
			{"TP2 TTFT", 2, simulate.BF16, simulate.Scenario{PromptTokens: 2048, OutputTokens: 1}, simulate.MetricTTFT},
			{"TP2 batch 16", 2, simulate.BF16, simulate.Scenario{PromptTokens: 512, OutputTokens: 32, Concurrency: 16}, simulate.MetricAggregateTPS},
		} {
			o := simulate.Observation{Scenario: c.s, Metric: c.m}
			figure := func(g simulate.GPU) float64 {
				v, err := o.Figure(simulate.Deployment{GPU: g, GPUs: c.gpus, Model: small, Precision: c.prec})
				if err != nil {
					t.Fatalf("%s %s: %v", g.Name, c.name, err)
				}
				return v
			}
			catalog, rebuilt := figure(g), figure(flags)
			if math.Abs(rebuilt-catalog) > 0.02*catalog {
				t.Errorf("%s %s from flags (%s) = %.4g, want the catalog's %.4g within 2%%", g.Name, c.name, g.Spec(), rebuilt, catalog)
			}
		}
	}
}

// TestGPUSpecDefaults checks the defaults a custom GPU takes from what is
// given, and that each is reported.
func TestGPUSpecDefaults(t *testing.T) {
	for _, c := range []struct {
		spec              simulate.GPUSpec
		vector, host, nvl float64
		arch              simulate.Arch
	}{
		{simulate.GPUSpec{BandwidthGBs: 3350, TFLOPS: 989, MemoryGB: 80}, 989.0 / 15, 64, 450, simulate.ArchHopper},
		{simulate.GPUSpec{BandwidthGBs: 2039, TFLOPS: 312, MemoryGB: 80, Arch: "ampere"}, 312.0 / 15, 32, 300, simulate.ArchAmpere},
		{simulate.GPUSpec{BandwidthGBs: 1008, TFLOPS: 165, MemoryGB: 24, Memory: "gddr"}, 165 / 2.5, 32, 0, simulate.ArchAda},
		{simulate.GPUSpec{BandwidthGBs: 800, TFLOPS: 27.2, MemoryGB: 192, Memory: "unified"}, 27.2, 800, 0, simulate.ArchApple},
		{simulate.GPUSpec{BandwidthGBs: 3350, TFLOPS: 989, MemoryGB: 80, Interconnect: "pcie"}, 989.0 / 15, 64, 0, simulate.ArchHopper},
		{simulate.GPUSpec{BandwidthGBs: 1008, TFLOPS: 165, MemoryGB: 24, Memory: "gddr", Interconnect: "112"}, 165 / 2.5, 32, 112, simulate.ArchAda},
	} {
		g, as, err := c.spec.GPU()
		if err != nil {
			t.Fatalf("%+v: %v", c.spec, err)
		}
		if math.Abs(g.VectorTFLOPS-c.vector) > 1e-9 || g.HostLinkGBs != c.host || g.PeerLinkGBs != c.nvl || g.Arch != c.arch {
			t.Errorf("GPUSpec%+v.GPU() = vector %v, host link %v, peer link %v, arch %v; want %v, %v, %v, %v",
				c.spec, g.VectorTFLOPS, g.HostLinkGBs, g.PeerLinkGBs, g.Arch, c.vector, c.host, c.nvl, c.arch)
		}
		text := ""
		for _, a := range as {
			text += a.String() + "\n"
		}
		for _, f := range []string{"vector-tflops", "host-link-gbs"} {
			if !strings.Contains(text, f+" = ") {
				t.Errorf("GPUSpec%+v.GPU() assumptions lack %s:\n%s", c.spec, f, text)
			}
		}
	}
}

// TestGPUSpecTensorParallelOverNVLink is the case a custom accelerator got
// wrong when it had no peer link: a 4-GPU 70B prefill priced its
// all-reduces over the host link. From flags the default is NVLink-class
// for an hbm GPU, as the catalog has it.
func TestGPUSpecTensorParallelOverNVLink(t *testing.T) {
	h100, _ := simulate.LookupGPU("h100-sxm")
	custom, _, err := simulate.GPUSpec{BandwidthGBs: 3350, TFLOPS: 989, FP8TFLOPS: 1979, MemoryGB: 80}.GPU()
	if err != nil {
		t.Fatal(err)
	}
	pcie, _, _ := simulate.GPUSpec{BandwidthGBs: 3350, TFLOPS: 989, FP8TFLOPS: 1979, MemoryGB: 80, Interconnect: "pcie"}.GPU()
	m, _ := simulate.LookupModel("llama-3.1-70b")
	o := simulate.Observation{Scenario: simulate.Scenario{PromptTokens: 2048, OutputTokens: 1}, Metric: simulate.MetricTTFT}
	ttft := func(g simulate.GPU) float64 {
		v, err := o.Figure(simulate.Deployment{GPU: g, GPUs: 4, Model: m, Precision: simulate.FP8})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	cat, flags, overPCIe := ttft(h100), ttft(custom), ttft(pcie)
	if math.Abs(flags-cat) > 0.05*cat {
		t.Errorf("TP4 70B TTFT from flags = %.1f ms, want the catalog's %.1f ms within 5%%", flags, cat)
	}
	if !(overPCIe > 1.2*cat) {
		t.Errorf("TP4 70B TTFT over PCIe = %.1f ms, want well above NVLink's %.1f ms", overPCIe, cat)
	}
}

func TestGPUSpecRejects(t *testing.T) {
	for _, s := range []simulate.GPUSpec{
		{},
		{BandwidthGBs: 1000, TFLOPS: 100},
		{BandwidthGBs: 1000, TFLOPS: 100, MemoryGB: 24, Memory: "sram"},
		{BandwidthGBs: 1000, TFLOPS: 100, MemoryGB: 24, Arch: "tpu"},
		{BandwidthGBs: 1000, TFLOPS: 100, MemoryGB: 24, Interconnect: "fast"},
		{BandwidthGBs: 1000, TFLOPS: 100, MemoryGB: 24, VectorTFLOPS: -1},
		{BandwidthGBs: 1000, TFLOPS: 100, MemoryGB: 24, InterconnectLatency: -1},
	} {
		if _, _, err := s.GPU(); !errors.Is(err, simulate.ErrInvalid) {
			t.Errorf("GPUSpec%+v.GPU() = %v, want ErrInvalid", s, err)
		}
	}
}

func TestParseRuntime(t *testing.T) {
	for _, c := range []struct {
		name string
		want simulate.Runtime
	}{
		{"vllm", simulate.RuntimeVLLM}, {"SGLang", simulate.RuntimeVLLM}, {"trtllm", simulate.RuntimeVLLM}, {"trt-llm", simulate.RuntimeVLLM},
		{"tensorrt-llm", simulate.RuntimeVLLM}, {"mlc", simulate.RuntimeVLLM}, {" TGI3 ", simulate.RuntimeVLLM},
		{"llama.cpp", simulate.RuntimeLlamaCpp}, {"llamacpp", simulate.RuntimeLlamaCpp}, {"ollama", simulate.RuntimeLlamaCpp}, {"ik_llama.cpp", simulate.RuntimeLlamaCpp},
		{"tgi", simulate.RuntimeEager}, {"transformers", simulate.RuntimeEager}, {"auto", simulate.RuntimeAuto},
	} {
		if got, err := simulate.ParseRuntime(c.name); err != nil || got != c.want {
			t.Errorf("ParseRuntime(%q) = %v, %v; want %v", c.name, got, err, c.want)
		}
	}
	_, err := simulate.ParseRuntime("trtllm2")
	var u *simulate.UnknownNameError
	if !errors.As(err, &u) || len(u.Known) != len(simulate.RuntimeNames()) {
		t.Fatalf("ParseRuntime(trtllm2) = %v, want an UnknownNameError listing every accepted name", err)
	}
	for _, n := range []string{"sglang", "tensorrt-llm", "trtllm", "tgi", "mlc", "vllm", "llama.cpp", "ollama"} {
		if !strings.Contains(err.Error(), n) {
			t.Errorf("ParseRuntime(trtllm2) error %q does not list %s", err, n)
		}
	}
}

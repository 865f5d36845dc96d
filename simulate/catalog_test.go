package simulate_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/tokenpace/tokenpace/simulate"
)

func TestLookupAliases(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"h100", "h100-sxm"}, {"H100-SXM", "h100-sxm"}, {"h100 sxm5", "h100-sxm"}, {"H100 PCIe", "h100-pcie"},
		{"4090", "rtx-4090"}, {"RTX 3090", "rtx-3090"}, {"a100", "a100-80gb"}, {"A100-40GB", "a100-40gb"},
		{"L4", "l4"}, {"a10g", "a10g"}, {"L40S", "l40s"}, {"h200", "h200"}, {"B200", "b200"},
		{"MI300X", "mi300x"}, {"m2-ultra", "m2-ultra"}, {"Apple M4 Max", "m4-max"},
	} {
		g, err := simulate.LookupGPU(tc.in)
		if err != nil || g.Name != tc.want {
			t.Errorf("LookupGPU(%q) = %q, %v; want %q", tc.in, g.Name, err, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"llama-3.1-8b", "llama-3.1-8b"}, {"meta-llama/Llama-3.1-8B-Instruct", "llama-3.1-8b"}, {"llama3-70b", "llama-3.1-70b"},
		{"Llama-3.3-70B-Instruct", "llama-3.1-70b"}, {"llama-3.1-405b", "llama-3.1-405b"}, {"llama-3.2-1b", "llama-3.2-1b"},
		{"llama-3.2-3b", "llama-3.2-3b"}, {"mistral-7b", "mistral-7b"}, {"mistral-nemo", "mistral-nemo-12b"},
		{"Mixtral-8x7B-Instruct-v0.1", "mixtral-8x7b"}, {"qwen2.5-7b-instruct", "qwen2.5-7b"}, {"Qwen2.5-72B", "qwen2.5-72b"},
		{"phi-3-mini", "phi-3-mini"}, {"gemma-2-9b-it", "gemma-2-9b"},
	} {
		m, err := simulate.LookupModel(tc.in)
		if err != nil || m.Name != tc.want {
			t.Errorf("LookupModel(%q) = %q, %v; want %q", tc.in, m.Name, err, tc.want)
		}
	}
}

func TestLookupUnknownListsKnownNames(t *testing.T) {
	_, err := simulate.LookupGPU("voodoo5")
	var ue *simulate.UnknownNameError
	if !errors.As(err, &ue) || !errors.Is(err, simulate.ErrUnknownName) {
		t.Fatalf("LookupGPU(voodoo5) = %v, want an *UnknownNameError", err)
	}
	if !strings.Contains(err.Error(), "h100-sxm") || !strings.HasPrefix(err.Error(), "simulate: ") {
		t.Errorf("error %q does not list the known names with the package prefix", err)
	}
	if _, err := simulate.LookupModel(""); !errors.Is(err, simulate.ErrUnknownName) {
		t.Errorf("LookupModel(\"\") = %v, want ErrUnknownName", err)
	}
}

func TestPrecisionBytes(t *testing.T) {
	for _, tc := range []struct {
		name string
		bits float64
	}{{"fp16", 16}, {"bf16", 16}, {"fp8", 8}, {"int8", 8}, {"int4", 4.15625}, {"q4_0", 4.5}, {"Q4_K_M", 4.85}, {"q8_0", 8.5}} {
		p, err := simulate.LookupPrecision(tc.name)
		if err != nil || p.BitsPerWeight != tc.bits {
			t.Errorf("LookupPrecision(%q).BitsPerWeight = %v, %v; want %v", tc.name, p.BitsPerWeight, err, tc.bits)
		}
	}
	if _, err := simulate.CustomPrecision(0); !errors.Is(err, simulate.ErrInvalid) {
		t.Errorf("CustomPrecision(0) = %v, want ErrInvalid", err)
	}
}

func TestCatalogEntriesAreComplete(t *testing.T) {
	for _, g := range simulate.GPUs() {
		if err := g.Validate(); err != nil || g.Source == "" {
			t.Errorf("GPU %s: %v, source %q", g.Name, err, g.Source)
		}
	}
	for _, m := range simulate.Models() {
		if err := m.Validate(); err != nil || m.Source == "" {
			t.Errorf("model %s: %v, source %q", m.Name, err, m.Source)
		}
	}
}

func TestKVBytesPerToken(t *testing.T) {
	m, _ := simulate.LookupModel("llama-3.1-8b")
	// 2 · 32 layers · 8 KV heads · 128 · 2 bytes = 131072.
	if got := m.KVBytesPerToken(16); got != 131072 {
		t.Errorf("llama-3.1-8b KVBytesPerToken(16) = %v, want 131072", got)
	}
}

func TestMixtureOfExpertsStreamsActiveThenAll(t *testing.T) {
	m, _ := simulate.LookupModel("mixtral-8x7b")
	embed := float64(m.Vocab) * float64(m.Hidden)
	one := m.StreamedBytes(simulate.BF16, 1)
	if want := (m.ActiveParamsB*1e9 - embed) * 2; math.Abs(one-want) > 1 {
		t.Errorf("Mixtral bytes streamed for one token = %.4g, want %.4g (active weights)", one, want)
	}
	many := m.StreamedBytes(simulate.BF16, 256)
	if want := (m.ParamsB*1e9 - embed) * 2; math.Abs(many-want)/want > 1e-9 {
		t.Errorf("Mixtral bytes streamed for 256 tokens = %.4g, want %.4g (every expert)", many, want)
	}
	if f := m.FLOPsPerToken(); math.Abs(f-2*(m.ActiveParamsB*1e9-embed)) > 1 {
		t.Errorf("Mixtral FLOPs per token = %.4g, want 2 × active", f)
	}
}

func TestCustomModelBorrowsNearestShape(t *testing.T) {
	m, err := simulate.CustomModel(70, simulate.ModelShape{})
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := simulate.LookupModel("llama-3.1-70b")
	if m.KVBytesPerToken(16) != ref.KVBytesPerToken(16) {
		t.Errorf("CustomModel(70) KV bytes per token = %v, want %v (Llama 3.1 70B's)", m.KVBytesPerToken(16), ref.KVBytesPerToken(16))
	}
	m, err = simulate.CustomModel(7, simulate.ModelShape{Layers: 10, KVHeads: 2, HeadDim: 64})
	if err != nil || m.KVBytesPerToken(16) != 2*10*2*64*2 {
		t.Errorf("CustomModel(7, shape) KV bytes per token = %v, %v; want %v", m.KVBytesPerToken(16), err, 2*10*2*64*2)
	}
	// A vocabulary is never borrowed; given, the untied input embedding is
	// looked up, not streamed nor multiplied.
	bare, _ := simulate.CustomModel(1.1, simulate.ModelShape{Hidden: 2048})
	untied, err := simulate.CustomModel(1.1, simulate.ModelShape{Hidden: 2048, Vocab: 32000})
	if err != nil {
		t.Fatal(err)
	}
	tied, _ := simulate.CustomModel(1.1, simulate.ModelShape{Hidden: 2048, Vocab: 32000, TiedEmbeddings: true})
	embed := 32000.0 * 2048
	for _, c := range []struct {
		name      string
		m         simulate.Model
		wantFLOPs float64
	}{{"no vocab", bare, 2 * 1.1e9}, {"untied vocab", untied, 2 * (1.1e9 - embed)}, {"tied vocab", tied, 2 * 1.1e9}} {
		if got := c.m.FLOPsPerToken(); math.Abs(got-c.wantFLOPs) > 1 {
			t.Errorf("CustomModel(1.1, %s) FLOPs per token = %.6g, want %.6g", c.name, got, c.wantFLOPs)
		}
		if got, want := c.m.StreamedBytes(simulate.BF16, 1), c.wantFLOPs; math.Abs(got-want) > 1 {
			t.Errorf("CustomModel(1.1, %s) bf16 bytes streamed = %.6g, want %.6g", c.name, got, want)
		}
	}
	if _, err := simulate.CustomModel(1.1, simulate.ModelShape{Vocab: -1}); !errors.Is(err, simulate.ErrInvalid) {
		t.Errorf("CustomModel(1.1, Vocab -1) = %v, want ErrInvalid", err)
	}
	if _, err := simulate.CustomModel(-1, simulate.ModelShape{}); !errors.Is(err, simulate.ErrInvalid) {
		t.Errorf("CustomModel(-1) = %v, want ErrInvalid", err)
	}
}

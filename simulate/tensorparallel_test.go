package simulate_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/tokenpace/tokenpace/simulate"
)

// A GPU count that does not split the model's heads is refused, as vLLM,
// SGLang and TensorRT-LLM refuse to start with it; it was predicted as if
// the engine ran.
func TestTensorParallelRefusedCounts(t *testing.T) {
	for _, tc := range []struct {
		model   string
		gpus    int
		runtime simulate.Runtime
		allowed string // empty: accepted
	}{
		{"llama-3.1-70b", 3, simulate.RuntimeVLLM, "1, 2, 4, 8, 16, 32, 64"},
		{"llama-3.1-8b", 64, simulate.RuntimeVLLM, "1, 2, 4, 8, 16, 32"},
		{"llama-3.1-8b", 6, simulate.RuntimeEager, "1, 2, 4, 8, 16, 32"},
		// 28 attention heads split over 7 and 14, but 4 KV heads neither
		// split over them nor replicate a whole number of times.
		{"qwen2.5-7b", 14, simulate.RuntimeVLLM, "1, 2, 4, 28"},
		{"qwen2.5-7b", 8, simulate.RuntimeVLLM, "1, 2, 4, 28"},
		{"llama-3.1-8b", 16, simulate.RuntimeVLLM, ""},
		{"llama-3.1-70b", 8, simulate.RuntimeVLLM, ""},
		{"qwen2.5-0.5b", 2, simulate.RuntimeVLLM, ""},
		{"gemma-2-2b", 8, simulate.RuntimeVLLM, ""},
		{"llama-2-13b", 8, simulate.RuntimeVLLM, ""},
		// llama.cpp splits by layers: any count.
		{"llama-3.1-70b", 3, simulate.RuntimeLlamaCpp, ""},
	} {
		m, err := simulate.LookupModel(tc.model)
		if err != nil {
			t.Fatal(err)
		}
		_, err = simulate.Deployment{Model: m, GPUs: tc.gpus, Runtime: tc.runtime}.Resolved()
		if tc.allowed == "" {
			if err != nil {
				t.Errorf("%s on %d GPUs (%v): %v, want it served", tc.model, tc.gpus, tc.runtime, err)
			}
			continue
		}
		var ie *simulate.InvalidError
		if !errors.As(err, &ie) || !strings.Contains(ie.Reason, "GPU counts that do: "+tc.allowed) {
			t.Errorf("%s on %d GPUs (%v): err = %v, want an *InvalidError naming %q", tc.model, tc.gpus, tc.runtime, err, tc.allowed)
		}
	}
}

// A custom model's heads are assumed (hidden size over head dimension);
// the refusal says so, and where the rest of its shape came from.
func TestTensorParallelCustomModelSaysAssumed(t *testing.T) {
	m, err := simulate.CustomModel(70, simulate.ModelShape{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = simulate.Deployment{Model: m, GPUs: 3}.Resolved()
	if err == nil || !strings.Contains(err.Error(), "8192 / 128") || !strings.Contains(err.Error(), "unset shape from llama-3.1-70b") {
		t.Errorf("custom 70B on 3 GPUs: err = %v, want the assumed heads (8192 / 128) and their source", err)
	}
}

// A custom model's attention heads are not given, and hidden / head
// dimension is not a checkpoint's count often enough (Gemma 3 12B: 16
// heads, 3840 / 256 = 15; Gemma 2 9B: 16, 3584 / 256 = 14) that a GPU
// count refused on them may be one vLLM starts: those were refused. Its KV
// heads, given or borrowed, are still checked.
func TestTensorParallelCustomModelHeadsNotChecked(t *testing.T) {
	gemma3, err := simulate.CustomModel(12, simulate.ModelShape{Hidden: 3840, HeadDim: 256, KVHeads: 8})
	if err != nil {
		t.Fatal(err)
	}
	bare9, err := simulate.CustomModel(9, simulate.ModelShape{}) // the shape of gemma-2-9b, 14 heads assumed
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		m    simulate.Model
		gpus int
	}{{gemma3, 2}, {gemma3, 8}, {bare9, 4}, {bare9, 8}} {
		if _, err := (simulate.Deployment{Model: tc.m, GPUs: tc.gpus}).Resolved(); err != nil {
			t.Errorf("custom model of %d assumed heads, %d KV heads, on %d GPUs: %v, want it served", tc.m.Heads, tc.m.KVHeads, tc.gpus, err)
		}
	}
	_, err = simulate.Deployment{Model: gemma3, GPUs: 3}.Resolved()
	if err == nil || !strings.Contains(err.Error(), "GPU counts that do, up to its 15 assumed attention heads: 1, 2, 4, 8") {
		t.Errorf("custom model of 8 KV heads on 3 GPUs: err = %v, want a refusal naming the counts its KV heads allow", err)
	}
}

// Past the KV heads a tensor-parallel engine keeps a copy of each on
// several GPUs (vLLM's get_num_kv_heads: at least one whole KV head a
// GPU), so the KV cache holds half as many tokens with twice the GPUs of
// KV heads; the room was counted as if each GPU held a sixteenth.
func TestKVCapacityCountsReplicatedHeads(t *testing.T) {
	m, _ := simulate.LookupModel("llama-3.1-8b") // 8 KV heads
	gpu, _ := simulate.LookupGPU("h100-sxm")
	for _, tc := range []struct{ gpus, copies int }{{1, 1}, {8, 1}, {16, 2}, {32, 4}} {
		d, err := simulate.Deployment{Model: m, GPU: gpu, GPUs: tc.gpus}.Resolved()
		if err != nil {
			t.Fatal(err)
		}
		free := float64(tc.gpus)*gpu.MemoryGB*1e9*0.9 - m.WeightBytes(simulate.BF16)
		want := int(free / (m.KVBytesPerToken(16) * float64(tc.copies)))
		if d.KVCapacityTokens != want {
			t.Errorf("8B on %d H100s: KV capacity %d tokens, want %d (each KV head on %d GPUs)", tc.gpus, d.KVCapacityTokens, want, tc.copies)
		}
	}
}

// Multi-head latent attention caches one latent a token a layer, held
// whole on every tensor-parallel GPU: written as one KV head of its own
// dimension (KVHeadDim), its 128 attention heads split over 8 GPUs and
// its latent counts eight times in the KV room.
func TestLatentAttentionOverTensorParallel(t *testing.T) {
	r1 := simulate.Model{Name: "deepseek-r1", ParamsB: 671, ActiveParamsB: 37, Experts: 256, ActiveExperts: 8,
		Layers: 61, Hidden: 7168, Heads: 128, KVHeads: 1, HeadDim: 544, KVHeadDim: 288, Vocab: 129280}
	if got, want := r1.KVBytesPerToken(16), 2*61*288*2.0; got != want {
		t.Errorf("KVBytesPerToken(16) = %v, want %v (61 layers × 576 latent elements × 2 bytes)", got, want)
	}
	if got, want := r1.AttentionFLOPsPerPair(), 61*2*128*1088.0; got != want {
		t.Errorf("AttentionFLOPsPerPair() = %v, want %v (2 FLOPs × 128 heads × (576 + 512) multiply-adds × 61 layers)", got, want)
	}
	h200, _ := simulate.LookupGPU("h200")
	d, err := simulate.Deployment{Model: r1, GPU: h200, GPUs: 8, Precision: simulate.FP8}.Resolved()
	if err != nil {
		t.Fatalf("DeepSeek-R1 on 8 H200s: %v, want it served (TensorRT-LLM and vLLM run it at TP 8)", err)
	}
	if got, want := d.KVBytesHeldPerToken(), 8*r1.KVBytesPerToken(16); got != want {
		t.Errorf("KVBytesHeldPerToken() = %v, want %v (the latent on each of 8 GPUs)", got, want)
	}
}

package simulate_test

import (
	"fmt"

	"github.com/tokenpace/tokenpace/simulate"
)

// Names are matched ignoring case and punctuation, with the aliases people
// type; an unknown name lists the known ones.
func ExampleLookupGPU() {
	g, _ := simulate.LookupGPU("H100")
	fmt.Println(g.Name, g.BandwidthGBs, "GB/s", g.FP16TFLOPS, "TFLOPS", g.MemoryGB, "GB")
	_, err := simulate.LookupGPU("voodoo5")
	fmt.Println(err)
	// Output:
	// h100-sxm 3350 GB/s 989 TFLOPS 80 GB
	// simulate: unknown GPU "voodoo5" (known: rtx-3090, rtx-4090, l4, a10g, l40s, a100-40gb, a100-80gb, h100-pcie, h100-sxm, h200, b200, mi300x, m2-ultra, m4-max, rtx-3090-ti, m2-pro, m2-pro-cpu, xeon-w-3245, raspberry-pi-5)
}

// A model's memory and KV-cache figures follow from its shape and the
// precision of its weights.
func ExampleLookupModel() {
	m, _ := simulate.LookupModel("meta-llama/Llama-3.1-70B-Instruct")
	q, _ := simulate.LookupPrecision("Q4_K_M")
	fmt.Printf("%s: %.1f GB at %s, %.1f GB at bf16, KV %.0f KB per token\n",
		m.Name, m.WeightBytes(q)/1e9, q.Name, m.WeightBytes(simulate.BF16)/1e9, m.KVBytesPerToken(16)/1e3)
	// Output:
	// llama-3.1-70b: 42.8 GB at q4_k_m, 141.1 GB at bf16, KV 328 KB per token
}

// Speculative decoding with draft length k and acceptance rate α yields
// (1 − α^(k+1)) / (1 − α) tokens per verify step.
func ExampleSpeculation_TokensPerStep() {
	s := simulate.Speculation{DraftTokens: 4, Acceptance: 0.8}
	fmt.Printf("%.4f tokens per step\n", s.TokensPerStep())
	// Output:
	// 3.3616 tokens per step
}

// Predictions carry the error the model made, cross-validated, on
// published measurements of deployments of the same class.
func ExampleErrorBands() {
	first, decode := simulate.ErrorBands(simulate.Deployment{}) // vLLM-class on an H100
	fmt.Printf("%s: median %.0f%%, p90 %.0f%% over %d measurements\n", first.Class, 100*first.Median, 100*first.P90, first.Rows)
	fmt.Printf("%s: median %.0f%%, p90 %.0f%% over %d measurements\n", decode.Class, 100*decode.Median, 100*decode.P90, decode.Rows)
	// Output:
	// vllm first token: median 10%, p90 22% over 30 measurements
	// vllm decode: median 11%, p90 24% over 47 measurements
}

// A GPU not in the catalog, described by its datasheet figures: the
// figures not given take defaults derived from the memory class, and GPU
// lists them so that a user sees what to measure.
func ExampleGPUSpec() {
	g, assumed, err := simulate.GPUSpec{BandwidthGBs: 1008, TFLOPS: 165, MemoryGB: 24, Memory: "gddr"}.GPU()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: %s memory, %s arch, vector %.0f TFLOPS, peer link %v GB/s\n", g.Name, g.Memory, g.Arch, g.VectorTFLOPS, g.PeerLinkGBs)
	for _, a := range assumed {
		fmt.Println(a)
	}
	// Output:
	// custom: gddr memory, ada arch, vector 66 TFLOPS, peer link 0 GB/s
	// arch = ada: from memory class gddr
	// fp8-tflops, int8-tops = 165: = --tflops (give them when the weights' precision runs faster than fp16)
	// vector-tflops = 66: --tflops / 2.5, a graphics card's typical ratio
	// host-link-gbs = 32: PCIe 4.0 x16
	// interconnect = pcie (32 GB/s host link): default for gddr memory
	// interconnect-latency = runtime class default: the engine's all-reduce latency over the link
}

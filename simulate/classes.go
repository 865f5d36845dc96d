package simulate

// classParams are the few constants of the latency model that no datasheet
// gives: how much of the datasheet a class of hardware and engine reaches.
// Every other figure is the catalog's (bandwidth, tensor rate, vector rate,
// link bandwidth, model shape). There are no per-deployment constants.
//
// The values in defaultParams are a regularised least-squares fit (log
// error, each parameter pulled toward its prior below) to the published
// measurements in testdata/fidelity.json; fidelity_test.go refits them with
// each source left out in turn and reports the error on the rows left out.
type classParams struct {
	// Bandwidth is the achievable share of datasheet bandwidth by
	// MemoryKind. Priors: HBM 0.80 and GDDR 0.85 (the share a
	// device-to-device copy reaches in vendor bandwidth tests), unified
	// 0.80, CPU DRAM 0.60 (STREAM triad on desktop parts).
	Bandwidth [4]float64
	// CDNABandwidth is the share of Bandwidth that serving engines reach
	// on AMD Instinct (CDNA) beside an NVIDIA device of the same memory
	// class. It measures their software more than the memory: the MI300X's
	// HBM streams at 79-82 % of its datasheet in microbenchmarks, but the
	// decode steps of vLLM 0.6.6 on ROCm 6.3 (8 × MI300X, TP8) and of
	// llama.cpp's HIP build take about twice what that rate predicts, and
	// later vLLM builds on ROCm are faster again. Prior 1 (no difference
	// assumed).
	CDNABandwidth float64
	// Tensor is the achievable share of the dense tensor rate in prefill
	// matrix multiplications by Arch. Priors: Hopper 0.45, Ampere 0.65, Ada
	// 0.55, CDNA 0.40, Apple 0.60, CPU 0.50 (cuBLAS/rocBLAS/MPS large-GEMM
	// shares on each generation; Hopper needs warp-specialised kernels to go
	// further).
	Tensor [6]float64
	// FP8 is the share of the fp8 (and int8) rate reached relative to
	// Tensor. Prior 0.8.
	FP8 float64
	// Attention is the share of the datasheet tensor rate that attention
	// reaches, whatever the class's GEMM share: attention runs in its own
	// kernels (FlashAttention, CK's on ROCm, llama.cpp's), not in the
	// vendor GEMM whose share Tensor measures, and at 16 bits whatever
	// format holds the weights. The efficiency passed to the cost model
	// is Attention / MFU, at most 1 (no faster than the GEMMs). Prior 0.4
	// (FlashAttention-2's forward pass reaches 50-73 % of an A100's peak
	// in its paper's kernels, less at serving's head sizes and lengths).
	// Taken relative to Tensor until December 2026 (prior 0.6, fitted
	// 0.38), it made attention on MI300X as slow as rocBLAS's GEMMs in
	// vLLM 0.6.6 (Tensor 0.30): TGI's held-out 64k- and 128k-token prompts
	// came out 24 % and 45 % slow, now within 2 %. One share for every
	// runtime class: a share per class (compiled engines with
	// FlashAttention apart from AutoAWQ's eager attention) fits 0.55,
	// 0.53 and 0.38 of Tensor, but its leave-one-source-out first-token
	// error is worse (12.3 % and 80 % within 30 %, against 11.1 % and
	// 82 %): the compiled engines' fitted rows stop at 5,000 tokens, too
	// short to tell the share.
	Attention float64
	// WeightOnlyBandwidth is the share of Bandwidth a weight-only format
	// (int4, int8 weight-only, GGUF) reaches in decode: its kernels load
	// scales and zero points beside the weights and unpack in the load
	// path. Prior 0.8.
	WeightOnlyBandwidth float64
	// WeightOnlyTensor is the share of Tensor a weight-only format's
	// matrix multiplication reaches in prefill, by runtime class. Prior 0.6
	// for compiled engines (vLLM unpacks past 256 tokens for the fp16 GEMM,
	// Marlin and TensorRT-LLM fuse it); llama.cpp unpacks a large batch to
	// fp16 for the vendor GEMM and keeps Tensor (1, not fitted; on Apple
	// GPUs what slows it is MetalTileDequant); eager
	// engines keep Tensor too (1, not fitted): what slows their fused GEMM
	// is TileDequant.
	WeightOnlyTensor [3]float64
	// TileDequant is the vector FLOPs per weight per prompt token that an
	// eager engine's fused weight-only GEMM (AutoAWQ's GEMM kernel,
	// GPTQ's CUDA kernels) spends unpacking: the kernel unpacks each weight
	// again for every tile of token rows, in the same warps as the matrix
	// work and not hidden behind it. On a GPU whose vector rate is low
	// beside its tensor rate (A100: 19.5 against 312 TFLOPS) this bounds
	// prefill. Prior 0.25: 4 FLOPs per weight (shift, mask, subtract the
	// zero point, scale) per 16-row tile (AWQ's m16n128k32 kernel).
	TileDequant float64
	// MetalTileDequant is TileDequant for llama.cpp on Apple GPUs: its
	// Metal matrix kernel unpacks the quantized weights of each tile into
	// threadgroup memory for every 32-row tile of prompt tokens, on the
	// same ALUs that multiply. Prior 0.125: 4 FLOPs per weight per 32-row
	// tile.
	MetalTileDequant float64
	// LlamaCppCDNATensor is the share of Tensor that llama.cpp's prompt
	// matrix multiplications reach on AMD Instinct (CDNA3): there its own
	// quantized kernels (MMQ, on the matrix cores since llama.cpp PR 14624
	// of July 2025) take the batches that go to the vendor GEMM on NVIDIA,
	// and ggml-cuda's ggml_cuda_should_use_mmq says why: rocBLAS "performs
	// very poorly on CDNA3" as of ROCm 7.0. Prior 1 (no difference
	// assumed); one source measures it.
	LlamaCppCDNATensor float64
	// Dequant is the vector FLOPs per weight a weight-only format costs to
	// unpack (shift, mask, convert, scale). Prior 4.
	Dequant float64
	// Fixed is the host time per step by runtime class (index:
	// runtimeClass): scheduling, sampling, detokenising. Priors: compiled
	// 0.5 ms, llama.cpp 1 ms, eager 2 ms.
	Fixed [3]float64
	// PerLayer is the host time per layer per step by runtime class: kernel
	// launches not hidden by a CUDA graph. Priors: compiled 5 µs, llama.cpp
	// 30 µs, eager 100 µs.
	PerLayer [3]float64
	// PerSeq is the host time per decoding sequence per step for compiled
	// engines: the scheduler walks its running requests every step
	// (vllm/v1/core/sched/scheduler.py, Scheduler.schedule and
	// update_from_output, appending each request's token and checking its
	// stop conditions), and the front end turns each request's new token
	// into output (vllm/v1/engine/output_processor.py, OutputProcessor:
	// detokenising, building each request's output), so a step of B sequences costs B times it on top
	// of Fixed. Held at 18 µs, its fit with a prior of 20 µs at an
	// earlier stop (BENCHMARKS.md, "Latency model: hardware from flags,
	// load curves, …"), not refitted: no fitted row is a load whose batch
	// grows by itself, and every fit, the cross-validation folds' too,
	// keeps the value here, as it does Ridge. Added to the host time,
	// it takes the load curves' leave-one-source-out median from 14.8 %
	// to 14.1 % and their share within 30 % from 71 % to 77 %.
	PerSeq float64
	// FrontRequest and FrontChunk are the serving process's front-end
	// host time per request and per streamed chunk by runtime class (see
	// Deployment.FrontEndPerRequest and FrontEndPerChunk): the work of
	// vLLM's API server process (since V1 its OutputProcessor detokenizes
	// there too, in parallel with the EngineCore process:
	// vllm/v1/engine/async_llm.py, output_handler), SGLang's
	// TokenizerManager and DetokenizerManager, trtllm-serve's Python
	// front. Compiled engines' chunk time is 7.5 µs: the one part of the
	// per-chunk path a source measures alone, rendering a chunk's JSON
	// with pydantic (vllm-project/vllm#52875: 7.50 µs a frame, Python
	// 3.12), the same order as the whole streaming penalty vLLM's
	// multi-step PR measured on Llama 3.1 8B on an H100 (vllm#8335: TPOT
	// +6 % at 26 ms with about 256 sequences a step, about 6 µs a chunk).
	// No source measures the rest (asyncio, detokenizing, the HTTP
	// server's write) or the time per request, nor llama-server's and
	// TGI's front ends (C++ and Rust): those are 0, none. Not fitted.
	FrontRequest, FrontChunk [3]float64
	// PrefillPerLayer is the extra host time per layer of a step that
	// prefills, for compiled engines: they replay CUDA graphs for decode
	// batches only, so a prefill step launches its kernels one by one.
	// Prior 60 µs (the eager class's per-layer time halved). A fixed
	// part beside it (per prefilling step, whatever the depth) was tried
	// and left out: it fits 0.73 ms, and the leave-one-source-out
	// first-token error worsens from 11.1 % to 12.3 %. A first token that
	// waits for one decode step after the prefill (as LMDeploy
	// TurboMind's held-out 128-token rows suggest) is no class habit
	// either: added to every compiled engine, TensorRT-LLM's 128-token
	// rows come out 40-70 % over (leave-one-source-out first token 18.0 %
	// and 62 % within 30 %).
	PrefillPerLayer float64
	// Ridge is the exponent k of the smooth roofline: a step whose memory
	// and compute times are m and c takes (m^k + c^k)^(1/k). Near the ridge
	// point neither unit is saturated while the other works, so the plain
	// max is optimistic. Prior 3. Held at 3.4, its fit on the table before
	// the TensorRT-LLM 0.9 rows joined, not refitted: refitted with them it
	// falls to 2.9 in-sample, and the held-out errors do not improve
	// (leave-one-source-out, before PrefillRidge: decode 9.9 % to 10.3 %,
	// first token 15.5 % to 15.6 %). No fit moves it: every fit, the
	// cross-validation folds' too, starts from and keeps the value here.
	Ridge float64
	// PrefillRidge is Ridge for a step that prefills. A prompt of a few
	// hundred tokens makes matrix multiplications near the ridge point
	// (on an A100, 128 rows of fp16 do 128 FLOPs per weight byte against
	// a ridge of 153), where a GEMM's tiles are too few to keep either
	// the memory system or the tensor units busy: measured first tokens at
	// 128 tokens on compiled engines (TensorRT-LLM, LMDeploy) take about
	// the sum of the weight read and the arithmetic, not their max. Prior
	// 1.5. Held, not fitted, as Ridge is: the cross-validated error is flat
	// from 1.25 to 1.75 (first token 12.5-12.9 %, decode 10.2 %), and
	// worse at 1 (decode 10.5 %) and at 2 (first token 13.0 %).
	PrefillRidge float64
	// Hop is the latency of one tensor-parallel all-reduce by runtime class
	// and link (NVLink, PCIe). Priors: compiled engines 10 and 30 µs (custom
	// one-shot all-reduce kernels inside a CUDA graph), eager engines 30 and
	// 80 µs (NCCL small-message latency plus a host round per layer);
	// llama.cpp splits by layers and does none. The same at every number
	// of GPUs: an eager engine's hop growing as NCCL's ring does (n−1
	// times the two-GPU one), as log2 n or as √(n−1) was tried, refitted
	// and cross-validated by source: TGI 1.2 on NVLink slows from two GPUs
	// to four, but TGI 1.0.3 on PCIe is as fast on eight A10Gs as on four,
	// and no growth law fits both (decode rows, leave-one-source-out: flat
	// 10.8 %, 89 % within 30 %; ring 9.8 %, 81 %; log2 9.9 %, 86 %; root
	// 10.4 %, 88 %).
	Hop [3][2]float64
	// AllReduceShare is the share of the peer link's bandwidth that a
	// tensor-parallel all-reduce's bytes reach, by link (NVLink-class,
	// PCIe). Priors: 0.8 over NVLink (NCCL's all_reduce bus bandwidth on
	// NVLink reaches about 80 % of the link), 0.5 over PCIe (without a
	// peer link the ring goes through the host bridge and, on a server of
	// two sockets, the link between them).
	AllReduceShare [2]float64
}

// priorParams are the priors the fit starts from and pulls toward.
var priorParams = classParams{
	Bandwidth:           [4]float64{0.80, 0.85, 0.80, 0.60},
	CDNABandwidth:       1,
	Tensor:              [6]float64{0.45, 0.65, 0.55, 0.40, 0.60, 0.50},
	FP8:                 0.8,
	Attention:           0.4,
	Dequant:             4,
	WeightOnlyBandwidth: 0.8,
	WeightOnlyTensor:    [3]float64{0.6, 1, 1},
	TileDequant:         0.25,
	MetalTileDequant:    0.125,
	LlamaCppCDNATensor:  1,
	Fixed:               [3]float64{0.5e-3, 1e-3, 2e-3},
	PerLayer:            [3]float64{5e-6, 30e-6, 100e-6},
	Ridge:               3,
	PrefillRidge:        1.5,
	PrefillPerLayer:     60e-6,
	PerSeq:              18e-6,
	FrontChunk:          [3]float64{7.5e-6, 0, 0},
	Hop:                 [3][2]float64{{10e-6, 30e-6}, {10e-6, 30e-6}, {30e-6, 80e-6}},
	AllReduceShare:      [2]float64{0.8, 0.5},
}

// defaultParams are the fitted values the model uses: fitClasses over the
// single measurements of testdata/fidelity.json (load-curve points and
// rows marked holdout are never fitted) from priorParams (go test -run TestFidelity
// -fit-classes -v), rounded.
var defaultParams = classParams{
	Bandwidth:           [4]float64{0.843, 1, 0.813, 0.625},
	CDNABandwidth:       0.567,
	Tensor:              [6]float64{0.65, 0.802, 0.71, 0.302, 0.619, 0.741},
	FP8:                 0.894,
	Attention:           0.178,
	WeightOnlyBandwidth: 0.867,
	WeightOnlyTensor:    [3]float64{0.598, 1, 1},
	TileDequant:         0.721,
	MetalTileDequant:    0.144,
	LlamaCppCDNATensor:  0.481,
	Dequant:             2.69,
	Fixed:               [3]float64{892e-6, 2.12e-3, 5.74e-3},
	PerLayer:            [3]float64{20e-6, 46.1e-6, 109e-6},
	PrefillPerLayer:     67.3e-6,
	PerSeq:              18e-6,
	FrontChunk:          [3]float64{7.5e-6, 0, 0},
	Ridge:               3.4,
	PrefillRidge:        1.5,
	Hop:                 [3][2]float64{{20.2e-6, 31.1e-6}, {10e-6, 30e-6}, {103e-6, 56.1e-6}},
	AllReduceShare:      [2]float64{0.504, 0.464},
}

// runtimeClass indexes Fixed and PerLayer.
func runtimeClass(r Runtime) int {
	switch r {
	case RuntimeLlamaCpp:
		return 1
	case RuntimeEager:
		return 2
	}
	return 0
}

// efficiency is the Efficiency p gives deployment d (identity filled in).
func (p classParams) efficiency(d Deployment) Efficiency {
	g := d.GPU
	mem := min(max(int(g.Memory), 0), len(p.Bandwidth)-1)
	arch := min(max(int(g.Arch), 0), len(p.Tensor)-1)
	e := Efficiency{MBU: p.Bandwidth[mem], MFU: p.Tensor[arch], Ridge: p.Ridge, PrefillRidge: p.PrefillRidge}
	if g.Arch == ArchCDNA {
		e.MBU *= p.CDNABandwidth
	}
	if d.Precision.Compute != ComputeFP16 && g.TFLOPS(d.Precision.Compute) > g.FP16TFLOPS {
		e.MFU *= p.FP8
	}
	rc := runtimeClass(d.Runtime)
	if rc == 1 && g.Arch == ArchCDNA {
		e.MFU *= p.LlamaCppCDNATensor
	}
	e.StepOverhead = seconds(p.Fixed[rc] + p.PerLayer[rc]*float64(d.Model.Layers))
	link := 1
	if g.NVLink() {
		link = 0
	}
	e.AllReduce = seconds(p.Hop[rc][link])
	e.AllReduceShare = p.AllReduceShare[link]
	if g.PeerLinkLatency > 0 {
		// The link's own latency, plus what the runtime class adds to it
		// (host rounds of an eager engine).
		e.AllReduce = g.PeerLinkLatency + max(e.AllReduce-seconds(p.Hop[0][link]), 0)
	}
	if d.Precision.weightOnly() {
		e.DequantOps = p.Dequant
		e.MBU *= p.WeightOnlyBandwidth
		e.MFU *= p.WeightOnlyTensor[rc]
		if rc == 2 {
			e.tileDequant = p.TileDequant
		}
		if rc == 1 && g.Arch == ArchApple {
			e.tileDequant = p.MetalTileDequant
		}
	}
	e.FrontEndPerRequest = seconds(p.FrontRequest[rc])
	e.FrontEndPerChunk = seconds(p.FrontChunk[rc])
	if rc == 0 {
		e.PrefillOverhead = seconds(p.PrefillPerLayer * float64(d.Model.Layers))
		e.SeqOverhead = seconds(p.PerSeq)
	}
	e.MBU, e.MFU = min(e.MBU, 1), min(e.MFU, 1)
	e.Attention = min(p.Attention/e.MFU, 1) // a share of the peak, not of the GEMMs'
	return e
}

// weightOnly reports a weight-only quantisation: fewer than 16 bits per
// weight with the arithmetic at fp16.
func (p Precision) weightOnly() bool { return p.Compute == ComputeFP16 && p.BitsPerWeight < 16 }

// param is one class parameter and the range a fit keeps it in.
type param struct {
	v      *float64
	lo, hi float64
}

// params lists every parameter of p, in a fixed order, with its range:
// shares in [0.05, 1], times in [0.1 µs, 50 ms].
func (p *classParams) params() []param {
	share := func(v *float64) param { return param{v, 0.05, 1} }
	time := func(v *float64) param { return param{v, 1e-7, 0.05} }
	v := []param{share(&p.CDNABandwidth), share(&p.FP8), share(&p.Attention), {&p.Dequant, 0.1, 100}, share(&p.WeightOnlyBandwidth), share(&p.WeightOnlyTensor[0]), {&p.TileDequant, 0.01, 10}, {&p.MetalTileDequant, 0.001, 10}, share(&p.LlamaCppCDNATensor)}
	for i := range p.Bandwidth {
		v = append(v, share(&p.Bandwidth[i]))
	}
	for i := range p.Tensor {
		v = append(v, share(&p.Tensor[i]))
	}
	for i := range p.Fixed {
		v = append(v, time(&p.Fixed[i]), time(&p.PerLayer[i]))
	}
	for _, rc := range []int{0, 2} {
		v = append(v, time(&p.Hop[rc][0]), time(&p.Hop[rc][1]))
	}
	v = append(v, share(&p.AllReduceShare[0]), share(&p.AllReduceShare[1]))
	return append(v, time(&p.PrefillPerLayer))
}

package simulate

import (
	"fmt"
	"math"
	"time"

	"github.com/tokenpace/tokenpace/simulate/internal/sigfig"
)

// Runtime names a class of serving engine; each has one set of efficiency
// defaults (see Defaults).
type Runtime int

const (
	// RuntimeAuto picks RuntimeLlamaCpp for GGUF precisions and
	// RuntimeVLLM otherwise.
	RuntimeAuto Runtime = iota
	// RuntimeVLLM is a batched GPU server with CUDA graphs and paged
	// attention: vLLM, SGLang, TensorRT-LLM, TGI.
	RuntimeVLLM
	// RuntimeLlamaCpp is llama.cpp and what embeds it (Ollama, LM Studio).
	RuntimeLlamaCpp
	// RuntimeEager is an engine whose decode step is driven from Python
	// kernel by kernel, without CUDA graphs: TGI 1.x, Hugging Face
	// transformers, vLLM before 0.2.7 or with --enforce-eager. Its host
	// overhead grows with the layers.
	RuntimeEager
)

// String returns the runtime's name as the flags and deployment files spell it.
func (r Runtime) String() string {
	switch r {
	case RuntimeVLLM:
		return "vllm"
	case RuntimeLlamaCpp:
		return "llama.cpp"
	case RuntimeEager:
		return "eager"
	}
	return "auto"
}

// Efficiency is the fraction of peak a runtime reaches and its fixed costs.
type Efficiency struct {
	// MBU is model bandwidth utilisation: achieved / peak memory bandwidth.
	MBU float64
	// MFU is model FLOPs utilisation: achieved / peak dense tensor rate.
	MFU float64
	// StepOverhead is the fixed time of one forward step (kernel launches,
	// sampling, scheduling) on top of the memory or compute time.
	StepOverhead time.Duration
	// AllReduce is the latency of one tensor-parallel all-reduce; a step
	// does two per layer when the model is split over more than one GPU.
	// The bytes of the all-reduce add their time over the peer link.
	AllReduce time.Duration
	// AllReduceShare is the share of the peer link's bandwidth that the
	// all-reduce's bytes reach; zero means 1.
	AllReduceShare float64
	// DequantOps is the vector-unit FLOPs one weight of a weight-only
	// format (int4, GGUF, 8-bit weight-only) costs to unpack each step, run
	// at GPU.VectorTFLOPS; zero means none.
	DequantOps float64
	// Attention is the efficiency of attention kernels relative to MFU:
	// attention FLOPs run at MFU × Attention; zero means 1.
	Attention float64
	// Ridge is the exponent k of the smooth roofline: a step with memory
	// time m and compute time c takes (m^k + c^k)^(1/k); zero or negative
	// means the plain max(m, c).
	Ridge float64
	// PrefillRidge is Ridge for a step that prefills: a matrix
	// multiplication of a few hundred prompt rows sits near the ridge
	// point, where it neither streams its weights nor multiplies at full
	// rate, and takes nearer the sum of the two times than their max.
	PrefillRidge float64
	// PrefillOverhead is the extra host time of a step that prefills
	// (kernels launched one by one outside a CUDA graph).
	PrefillOverhead time.Duration
	// SeqOverhead is the host time per decoding sequence of a step
	// (scheduling it, turning its token into output), on top of
	// StepOverhead.
	SeqOverhead time.Duration
	// FrontEndPerRequest is the serving process's host time to take one
	// request in before the engine sees it (parsing, chat template,
	// tokenizing), spent in the front end that also writes every chunk
	// (see FrontEndPerChunk); requests wait for it in order.
	FrontEndPerRequest time.Duration
	// FrontEndPerChunk is the serving process's host time to write one
	// streamed chunk to its client (detokenizing, building and writing
	// the SSE event), in the same front end: it works beside the engine's
	// steps, so a step's tokens reach their clients no sooner than the
	// front end can write them, one chunk after another.
	FrontEndPerChunk time.Duration
	// tileDequant is the vector FLOPs per weight per prompt token that a
	// weight-only GEMM spends unpacking each weight again for every tile
	// of token rows (see classParams.TileDequant and MetalTileDequant),
	// serial with the matrix work; zero means the weights are unpacked
	// once per step.
	tileDequant float64
}

// Defaults returns the efficiency of r for the default deployment (an
// H100 SXM at bf16 for RuntimeVLLM and RuntimeEager, an RTX 4090 at Q4_K_M
// for RuntimeLlamaCpp) and Llama 3.1 8B. The efficiency of any other
// deployment depends on its memory kind, architecture, link and layers: see
// DefaultsFor. RuntimeAuto returns the vLLM class.
func Defaults(r Runtime) Efficiency {
	d := Deployment{Runtime: r}
	if r == RuntimeLlamaCpp {
		d.GPU, _ = LookupGPU("rtx-4090")
		d.Precision = Q4KM
	}
	return DefaultsFor(d)
}

// DefaultsFor returns the efficiency the latency model expects of d from
// its classes (see classParams): the achievable share of bandwidth by
// memory kind, of the tensor rate by architecture (and fp8), the host
// overhead of its runtime class per step and per layer, the all-reduce
// latency of its link (NVLink or PCIe), the dequantization cost of
// weight-only formats and the attention efficiency. Zero fields of d take
// their defaults first; d's own overrides are ignored.
func DefaultsFor(d Deployment) Efficiency { return defaultParams.efficiency(d.withIdentity()) }

// KVPolicy is what the engine does when the KV cache is full.
type KVPolicy int

const (
	// KVOffload spills KV blocks past Deployment.OffloadThreshold to host
	// memory; each step reads them back over the host link, so decode slows
	// by the host-link / VRAM bandwidth ratio for the offloaded share.
	// Host memory is taken to be large enough for any spill, so admission
	// is bounded by MaxRunning alone.
	KVOffload KVPolicy = iota
	// KVPreempt evicts the most recently admitted sequence when a step
	// needs a block and none is free; the evicted sequence waits at the
	// head of the queue and recomputes its prompt and output so far (vLLM's
	// recompute preemption).
	KVPreempt
)

// Speculation configures speculative decoding. The zero value disables it.
type Speculation struct {
	// DraftTokens is the draft length k proposed per verify step; zero
	// disables speculative decoding.
	DraftTokens int
	// Acceptance is the probability α that the target model accepts a
	// draft token, in [0, 1). A verify step then yields
	// (1 − α^(k+1)) / (1 − α) tokens in expectation; the engine emits
	// exactly that many on average, deterministically.
	Acceptance float64
	// DraftCost is the time of one draft step as a fraction of a target
	// step; zero means drafting is free (n-gram or prompt lookup). A verify
	// step takes (1 + k·DraftCost) times the target step for k+1 tokens.
	DraftCost float64
}

// TokensPerStep is the expected tokens one verify step yields,
// (1 − α^(k+1)) / (1 − α); 1 when speculation is off.
func (s Speculation) TokensPerStep() float64 {
	if s.DraftTokens <= 0 {
		return 1
	}
	return (1 - pow(s.Acceptance, s.DraftTokens+1)) / (1 - s.Acceptance)
}

// Deployment describes a model served on hardware. It is plain data: every
// field's zero value means a sensible default, so Deployment{} is
// Llama 3.1 8B at bf16 on one H100 SXM under a vLLM-class runtime.
type Deployment struct {
	// GPU is one device's figures; zero means the H100 SXM.
	GPU GPU
	// GPUs is how many GPUs hold the model; zero means 1. Memory adds up
	// either way. RuntimeVLLM splits every layer over them (tensor
	// parallelism): bandwidth and FLOPS add up too, at the cost of two
	// all-reduces per layer; the count must split the model's heads as
	// the engines require (see CheckTensorParallel). RuntimeLlamaCpp
	// splits the model by layers (llama.cpp's default): a token passes the
	// GPUs one after another, so a step runs at one GPU's bandwidth and
	// FLOPS.
	GPUs int
	// Model is the model served; zero means Llama 3.1 8B.
	Model Model
	// Precision is how the weights are stored; zero means BF16.
	Precision Precision
	// KVBits is the bits per KV-cache element; zero means 16.
	KVBits float64
	// Runtime picks the efficiency defaults; zero picks by Precision.
	Runtime Runtime
	// MBU overrides the runtime's bandwidth utilisation; zero keeps it.
	MBU float64
	// MFU overrides the runtime's FLOPs utilisation; zero keeps it.
	MFU float64
	// StepOverhead overrides the runtime's fixed time per step; zero keeps
	// it, negative means no host time at all: none per step, and none per
	// sequence or in the front end unless SeqOverhead, FrontEndPerRequest
	// or FrontEndPerChunk is set.
	StepOverhead time.Duration
	// AllReduce overrides the runtime's tensor-parallel all-reduce latency;
	// zero keeps it, negative means no all-reduce cost at all (neither
	// latency nor bytes).
	AllReduce time.Duration
	// AllReduceShare overrides the share of the peer link's bandwidth an
	// all-reduce reaches (see Efficiency.AllReduceShare); zero keeps the
	// class default.
	AllReduceShare float64
	// DequantOps overrides the vector FLOPs per weight that weight-only
	// formats cost to unpack; zero keeps the class default, negative means
	// none.
	DequantOps float64
	// Attention overrides the attention efficiency relative to MFU; zero
	// keeps the class default.
	Attention float64
	// Ridge overrides the exponent of the smooth roofline (see
	// Efficiency.Ridge); zero keeps the class default, negative means the
	// plain max of memory and compute time.
	Ridge float64
	// PrefillRidge overrides the exponent for a step that prefills (see
	// Efficiency.PrefillRidge); zero keeps the class default, or Ridge
	// when Ridge is set, negative means the plain max.
	PrefillRidge float64
	// PrefillOverhead overrides the extra host time of a step that
	// prefills; zero keeps the class default, negative means none.
	PrefillOverhead time.Duration
	// SeqOverhead overrides the host time per decoding sequence of a step
	// (see Efficiency.SeqOverhead); zero keeps the class default, negative
	// means none.
	SeqOverhead time.Duration
	// FrontEndPerRequest overrides the front end's host time per request
	// (see Efficiency.FrontEndPerRequest); zero keeps the class default,
	// negative means none.
	FrontEndPerRequest time.Duration
	// FrontEndPerChunk overrides the front end's host time per streamed
	// chunk (see Efficiency.FrontEndPerChunk); zero keeps the class
	// default, negative means none.
	FrontEndPerChunk time.Duration
	// FirstTokenFromDecode makes a prompt's first token the output of the
	// decode step after its prefill, not of the prefill's last step: the
	// engine prefills every prompt token but the last, and the last one
	// goes through the next decode step, whose logits give the first
	// token. TurboMind (LMDeploy v0.1) works so: its ContextDecode skips
	// the last input token ("will process with decoder later"), and the
	// stream's first callback comes from Finish after the first Generate
	// step (src/turbomind/models/llama/LlamaBatch.cc). SGLang since v0.4
	// samples the first token from the prefill but, launched without CUDA
	// graphs (--disable-cuda-graph), delivers it a decode step late, which
	// a caller sees the same way: its overlap scheduler handles a batch's
	// output only after launching the next batch (sgl-project/sglang#2067,
	// #10514, #25772), and a Python-launched decode step holds it back a
	// whole step (every concurrency-1 run of one L4 benchmark: first token
	// 2.02-2.08 times the TPOT). False, the zero value, is how vLLM,
	// TensorRT-LLM, llama.cpp and SGLang with CUDA graphs deliver the
	// first token: when the prefill's own logits give it.
	FirstTokenFromDecode bool
	// tileDequant is the class's Efficiency.tileDequant.
	tileDequant float64
	// MaxRunning is the most sequences batched at once (vLLM's
	// max_num_seqs); zero means 256.
	MaxRunning int
	// MaxBatchedTokens is the most tokens one step processes (vLLM's
	// max_num_batched_tokens): decode tokens first, then prefill chunks in
	// the remaining budget; zero means 8192.
	MaxBatchedTokens int
	// BlockSize is the tokens per KV-cache block; zero means 16.
	BlockSize int
	// MemoryUtilization is the share of GPU memory the engine may use for
	// weights and KV cache; zero means 0.9.
	MemoryUtilization float64
	// KVCapacityTokens overrides the KV-cache size in tokens; zero derives
	// it from memory: (GPUs · MemoryGB · MemoryUtilization − weights) /
	// KV bytes held per token (see KVBytesHeldPerToken: past the KV heads,
	// a tensor-parallel engine keeps a copy of each on several GPUs).
	KVCapacityTokens int
	// OffloadThreshold is the KV usage past which KVOffload spills to host
	// memory; zero means 0.95.
	OffloadThreshold float64
	// KVPolicy is what happens when the KV cache is full; zero is
	// KVOffload.
	KVPolicy KVPolicy
	// DisablePrefixCaching turns the prefix cache off; by default requests
	// sharing a Request.PrefixKey skip the cached prefix's prefill.
	DisablePrefixCaching bool
	// Speculation configures speculative decoding; zero disables it.
	Speculation Speculation
}

// Resolved returns d with every default filled in, KVCapacityTokens
// included, and validates it: a negative or impossible figure, a GPU count
// a tensor-parallel engine refuses (see CheckTensorParallel), or a model
// whose weights do not fit in memory, yields an *InvalidError. Resolving a
// resolved Deployment changes nothing.
func (d Deployment) Resolved() (Deployment, error) { return d.resolvedWith(defaultParams) }

// resolvedWith is Resolved with the class parameters p.
func (d Deployment) resolvedWith(p classParams) (Deployment, error) {
	d = d.withIdentity()
	def := p.efficiency(d)
	d.KVBits = orF(d.KVBits, 16)
	d.GPUs = orI(d.GPUs, 1)
	d.MBU = orF(d.MBU, def.MBU)
	d.MFU = orF(d.MFU, def.MFU)
	d.StepOverhead = orD(d.StepOverhead, def.StepOverhead)
	d.AllReduce = orD(d.AllReduce, def.AllReduce)
	d.AllReduceShare = orF(d.AllReduceShare, def.AllReduceShare)
	d.DequantOps = orF(d.DequantOps, def.DequantOps)
	d.Attention = orF(d.Attention, def.Attention)
	d.PrefillRidge = orF(d.PrefillRidge, orF(d.Ridge, def.PrefillRidge))
	d.Ridge = orF(d.Ridge, def.Ridge)
	d.PrefillOverhead = orD(d.PrefillOverhead, def.PrefillOverhead)
	if d.StepOverhead < 0 {
		// No host time at all: none per sequence or in the front end
		// either, unless set.
		d.SeqOverhead = orD(d.SeqOverhead, -1)
		d.FrontEndPerRequest = orD(d.FrontEndPerRequest, -1)
		d.FrontEndPerChunk = orD(d.FrontEndPerChunk, -1)
	}
	d.SeqOverhead = orD(d.SeqOverhead, def.SeqOverhead)
	d.FrontEndPerRequest = orD(d.FrontEndPerRequest, def.FrontEndPerRequest)
	d.FrontEndPerChunk = orD(d.FrontEndPerChunk, def.FrontEndPerChunk)
	d.tileDequant = orF(d.tileDequant, def.tileDequant)
	return d.resolveRest()
}

// withIdentity fills what the deployment is (GPU, model, precision,
// runtime), leaving the efficiency figures alone.
func (d Deployment) withIdentity() Deployment {
	if d.GPU == (GPU{}) {
		d.GPU, _ = LookupGPU("h100-sxm")
	}
	if d.Model == (Model{}) {
		d.Model, _ = LookupModel("llama-3.1-8b")
	}
	if d.Precision == (Precision{}) {
		d.Precision = BF16
	}
	if d.Runtime == RuntimeAuto {
		d.Runtime = RuntimeVLLM
		if d.Precision.GGUF {
			d.Runtime = RuntimeLlamaCpp
		}
	}
	return d
}

// resolveRest fills the scheduler defaults and validates d.
func (d Deployment) resolveRest() (Deployment, error) {
	d.MaxRunning = orI(d.MaxRunning, 256)
	d.MaxBatchedTokens = orI(d.MaxBatchedTokens, 8192)
	d.BlockSize = orI(d.BlockSize, 16)
	d.MemoryUtilization = orF(d.MemoryUtilization, 0.9)
	d.OffloadThreshold = orF(d.OffloadThreshold, 0.95)
	if err := d.GPU.Validate(); err != nil {
		return d, err
	}
	if err := d.Model.Validate(); err != nil {
		return d, err
	}
	if err := d.CheckTensorParallel(); err != nil {
		return d, err
	}
	checks := []struct {
		ok    bool
		field string
		v     any
		why   string
	}{
		{d.Precision.BitsPerWeight > 0 && d.Precision.BitsPerWeight <= 32, "bits per weight", d.Precision.BitsPerWeight, "must be in (0, 32]"},
		{d.KVBits > 0 && d.KVBits <= 32, "KV bits", d.KVBits, "must be in (0, 32]"},
		{d.GPUs > 0, "GPU count", d.GPUs, "must be positive"},
		{d.MBU > 0 && d.MBU <= 1, "MBU", d.MBU, "must be in (0, 1]"},
		{d.MFU > 0 && d.MFU <= 1, "MFU", d.MFU, "must be in (0, 1]"},
		{d.AllReduceShare > 0 && d.AllReduceShare <= 1, "all-reduce share", d.AllReduceShare, "must be in (0, 1]"},
		{d.MaxRunning > 0, "max running sequences", d.MaxRunning, "must be positive"},
		{d.BlockSize > 0, "KV block size", d.BlockSize, "must be positive"},
		{d.MemoryUtilization > 0 && d.MemoryUtilization <= 1, "memory utilization", d.MemoryUtilization, "must be in (0, 1]"},
		{d.KVCapacityTokens >= 0, "KV capacity (tokens)", d.KVCapacityTokens, "must not be negative"},
		{d.OffloadThreshold > 0 && d.OffloadThreshold <= 1, "offload threshold", d.OffloadThreshold, "must be in (0, 1]"},
		{d.KVPolicy == KVOffload || d.KVPolicy == KVPreempt, "KV policy", d.KVPolicy, "must be KVOffload or KVPreempt"},
		{d.Runtime == RuntimeVLLM || d.Runtime == RuntimeLlamaCpp || d.Runtime == RuntimeEager, "runtime", d.Runtime, "unknown"},
		{!math.IsNaN(d.DequantOps) && !math.IsInf(d.DequantOps, 0), "dequantization ops per weight", d.DequantOps, "must be finite"},
		{d.Attention > 0 && d.Attention <= 1, "attention efficiency", d.Attention, "must be in (0, 1]"},
		{!math.IsNaN(d.Ridge) && !math.IsInf(d.Ridge, 0), "roofline ridge exponent", d.Ridge, "must be finite"},
		{!math.IsNaN(d.PrefillRidge) && !math.IsInf(d.PrefillRidge, 0), "prefill roofline ridge exponent", d.PrefillRidge, "must be finite"},
		{d.Speculation.DraftTokens >= 0, "draft tokens", d.Speculation.DraftTokens, "must not be negative"},
		{d.Speculation.Acceptance >= 0 && d.Speculation.Acceptance < 1, "draft acceptance", d.Speculation.Acceptance, "must be in [0, 1)"},
		{d.Speculation.DraftCost >= 0 && !math.IsInf(d.Speculation.DraftCost, 1), "draft cost", d.Speculation.DraftCost, "must be finite and not negative"},
		{d.MaxBatchedTokens >= d.MaxRunning*(max(d.Speculation.DraftTokens, 0)+1), "max batched tokens", d.MaxBatchedTokens,
			fmt.Sprintf("must be at least max running sequences × (draft tokens + 1) = %d", d.MaxRunning*(max(d.Speculation.DraftTokens, 0)+1))},
	}
	for _, c := range checks {
		if !c.ok {
			return d, &InvalidError{Field: c.field, Value: c.v, Reason: c.why}
		}
	}
	if d.KVCapacityTokens == 0 {
		usable := float64(d.GPUs) * d.GPU.MemoryGB * 1e9 * d.MemoryUtilization
		weights := d.Model.WeightBytes(d.Precision)
		free := usable - weights
		perToken := d.KVBytesHeldPerToken()
		if free < perToken*float64(d.BlockSize) {
			return d, &InvalidError{
				Field: "deployment", Value: d.Model.Name,
				Reason: fmt.Sprintf("weights (%s GB at %s) do not fit with a KV cache in %d × %s GB × %.2f usable memory",
					sigfig.Num(weights/1e9), d.Precision.Name, d.GPUs, sigfig.Num(d.GPU.MemoryGB), d.MemoryUtilization),
			}
		}
		d.KVCapacityTokens = int(min(free/perToken, maxKVTokens))
	}
	if d.KVCapacityTokens < d.BlockSize {
		return d, &InvalidError{Field: "KV capacity (tokens)", Value: d.KVCapacityTokens, Reason: "smaller than one block"}
	}
	return d, nil
}

// parallel is how many GPUs' bandwidth and FLOPS one step uses at once.
func (d Deployment) parallel() int {
	if d.Runtime == RuntimeLlamaCpp {
		return 1
	}
	return d.GPUs
}

// maxKVTokens bounds a KV cache derived from memory (1e12 tokens: far past
// any real device).
const maxKVTokens = 1e12

func orF(v, def float64) float64 {
	if v == 0 {
		return def
	}
	return v
}

func orI(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// orD keeps v (negative means none) and uses def for zero.
func orD(v, def time.Duration) time.Duration {
	if v == 0 {
		return def
	}
	return v
}

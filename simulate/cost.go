package simulate

import (
	"math"
	"time"
)

// Bound names the resource that sets a step's time.
type Bound string

const (
	// MemoryBound: streaming weights and KV cache takes longer than the
	// arithmetic.
	MemoryBound Bound = "memory"
	// ComputeBound: the arithmetic takes longer than streaming the bytes.
	ComputeBound Bound = "compute"
)

// Load is the work of one forward step.
type Load struct {
	// DecodeSeqs is the number of sequences decoding this step.
	DecodeSeqs int
	// DecodeTokens is the tokens those sequences process: DecodeSeqs, or
	// DecodeSeqs · (k+1) with speculative decoding.
	DecodeTokens int
	// DecodeContext is the sum of the decoding sequences' context lengths
	// (tokens whose KV cache each reads).
	DecodeContext int64
	// PrefillTokens is the prompt tokens prefilled this step.
	PrefillTokens int
	// PrefillPairs is the attention (query, key) pairs of those tokens:
	// for a chunk of n tokens after c already cached, n·c + n(n+1)/2.
	PrefillPairs float64
	// PrefillContext is the sum over chunks of the tokens already in the
	// cache before the chunk (KV read by the chunk).
	PrefillContext int64
	// Offloaded is the share of KV bytes held in host memory, 0..1.
	Offloaded float64
}

// StepCost is the time of one step and how it arises.
type StepCost struct {
	// Time is the whole step: the paths that overlap, then what does not.
	// Memory and Compute overlap along the smooth roofline
	// ((Memory^k + Compute^k)^(1/k), k the deployment's PrefillRidge for
	// a step that prefills and its Ridge otherwise, or their max when k is
	// not positive); Dequant overlaps both on a GPU whose vector
	// units are apart from its matrix units (the dequantization is fused
	// into the matrix kernel) and joins Compute where the same units do
	// both (CPUs, Apple GPUs). The result is scaled for speculative
	// drafting, and Overhead, which overlaps nothing, is added.
	Time time.Duration
	// Memory is the time to stream WeightBytes and KVBytes (the
	// host-resident share over the host link).
	Memory time.Duration
	// Compute is FLOPs / (rate · MFU).
	Compute time.Duration
	// Overhead is the fixed step overhead, the host time of each decoding
	// sequence, and tensor-parallel all-reduces (their latency and their
	// bytes over the peer link).
	Overhead time.Duration
	// Dequant is the time to unpack weight-only quantised weights on the
	// vector units (see Time for what it overlaps).
	Dequant time.Duration
	// WeightBytes and KVBytes are the bytes streamed.
	WeightBytes, KVBytes float64
	// FLOPs is the arithmetic done.
	FLOPs float64
	// Bound is MemoryBound or ComputeBound.
	Bound Bound
}

// costModel turns a step's Load into time for one resolved Deployment.
type costModel struct {
	d          Deployment
	bw         float64 // bytes/s, all GPUs, times MBU
	host       float64 // bytes/s over the host links, times MBU
	rate       float64 // FLOP/s, all GPUs, times MFU
	kvPerToken float64
	perToken   float64 // FLOPs per token outside attention
	head       float64 // of them, the output projection's (logits)
	perPair    float64 // attention FLOPs per (query, key) pair, over the attention efficiency
	overhead   time.Duration
	perSeq     time.Duration // host time per decoding sequence
	arPerToken float64       // seconds of all-reduce traffic per token of a step
	dequant    float64       // seconds per streamed weight byte to dequantise
	tile       float64       // seconds per streamed weight byte per prompt token to unpack again per tile of rows
	fused      bool          // dequantization runs beside the matrix units, hidden behind them
	draft      float64       // 1 + k·DraftCost
	ridge      float64       // smooth-roofline exponent; ≤ 0: plain max
	prefill    float64       // ridge for a step that prefills
	dense      float64       // streamed weight bytes of a dense model; 0 for MoE
}

func newCostModel(d Deployment) costModel {
	n := float64(d.parallel())
	c := costModel{
		d:          d,
		bw:         n * d.GPU.BandwidthGBs * 1e9 * d.MBU,
		host:       n * d.GPU.HostLinkGBs * 1e9 * d.MBU,
		rate:       n * d.GPU.TFLOPS(d.Precision.Compute) * 1e12 * d.MFU,
		kvPerToken: d.Model.KVBytesPerToken(d.KVBits),
		perToken:   d.Model.FLOPsPerToken(),
		head:       min(d.Model.headFLOPs(), d.Model.FLOPsPerToken()),
		perPair:    d.Model.AttentionFLOPsPerPair() / orF(d.Attention, 1),
		overhead:   max(d.StepOverhead, 0),
		perSeq:     max(d.SeqOverhead, 0),
		draft:      1 + float64(d.Speculation.DraftTokens)*d.Speculation.DraftCost,
		ridge:      d.Ridge,
		prefill:    d.PrefillRidge,
	}
	if d.parallel() > 1 && d.AllReduce >= 0 {
		c.overhead += time.Duration(2*d.Model.Layers) * d.AllReduce
		// A ring all-reduce moves 2(n−1)/n of the fp16 activations
		// through each GPU's link, twice per layer.
		bytes := 2 * float64(d.Model.Layers) * 2 * float64(d.Model.Hidden) * 2 * (n - 1) / n
		c.arPerToken = bytes / (d.GPU.peerLinkGBs() * 1e9 * orF(d.AllReduceShare, 1))
	}
	if d.DequantOps > 0 && d.Precision.weightOnly() {
		weightsPerByte := 1 / d.Precision.BytesPerWeight()
		c.dequant = weightsPerByte * d.DequantOps / (n * d.GPU.vectorTFLOPS() * 1e12)
		c.fused = d.GPU.separateVectorUnits()
		if d.tileDequant > 0 {
			c.tile = weightsPerByte * d.tileDequant / (n * d.GPU.vectorTFLOPS() * 1e12)
		}
	}
	if d.Model.Experts == 0 {
		c.dense = d.Model.StreamedBytes(d.Precision, 1)
	}
	return c
}

// step prices one forward step.
func (c *costModel) step(l Load) StepCost {
	tokens := l.DecodeTokens + l.PrefillTokens
	s := StepCost{Overhead: c.overhead + time.Duration(l.DecodeSeqs)*c.perSeq + seconds(c.arPerToken*float64(tokens))}
	if l.PrefillTokens > 0 {
		s.Overhead += max(c.d.PrefillOverhead, 0)
	}
	s.WeightBytes = c.dense
	if s.WeightBytes == 0 {
		s.WeightBytes = c.d.Model.StreamedBytes(c.d.Precision, tokens)
	}
	s.KVBytes = float64(l.DecodeContext+l.PrefillContext) * c.kvPerToken
	hostKV := s.KVBytes * l.Offloaded
	mem := (s.WeightBytes+s.KVBytes-hostKV)/c.bw + hostKV/c.host
	// Prompt tokens skip the output projection: only a prompt's last
	// token needs logits (one row per prefilling step).
	s.FLOPs = c.perToken*float64(tokens) - c.head*float64(max(l.PrefillTokens-1, 0)) + c.perPair*(float64(l.DecodeContext)*float64(l.DecodeTokens)/float64(max(l.DecodeSeqs, 1))+l.PrefillPairs)
	comp := s.FLOPs / c.rate
	dq := s.WeightBytes * c.dequant
	if !c.fused {
		comp += dq // the same units unpack and multiply
	}
	if c.tile > 0 && l.PrefillTokens > 0 {
		// A GEMM that unpacks each weight again for every tile of prompt
		// rows (an eager engine's fused kernel, llama.cpp's Metal kernel)
		// does so in the threads that multiply: serial with the matrix
		// work. (A decode batch is one tile: Dequant above.)
		tdq := s.WeightBytes * c.tile * float64(l.PrefillTokens)
		comp += tdq
		dq += tdq
	}
	s.Dequant = seconds(dq)
	s.Memory, s.Compute = seconds(mem), seconds(comp)
	s.Bound = MemoryBound
	work := mem
	if comp > mem {
		s.Bound, work = ComputeBound, comp
	}
	k := c.ridge
	if l.PrefillTokens > 0 {
		k = c.prefill
	}
	if k > 0 && work > 0 {
		lo := min(mem, comp) / work
		work *= math.Pow(1+math.Pow(lo, k), 1/k)
	}
	if c.fused && dq > work {
		s.Bound, work = ComputeBound, dq
	}
	if l.DecodeSeqs > 0 {
		work *= c.draft
	}
	s.Time = max(seconds(work)+s.Overhead, 1)
	return s
}

// prefillPairs is the attention pairs of n new tokens after c cached ones.
func prefillPairs(n, c int) float64 {
	return float64(n)*float64(c) + float64(n)*float64(n+1)/2
}

func seconds(s float64) time.Duration { return time.Duration(math.Round(s * 1e9)) }

package simulate

import (
	"math"
	"time"
)

// GPU is one accelerator's figures, per device. Rates are dense (no
// structured sparsity), as datasheets list them. A GPU from the catalog
// (LookupGPU) or from plain numbers (CustomGPU) goes into a Deployment.
type GPU struct {
	// Name is the catalog name, e.g. "h100-sxm"; free text for a custom GPU.
	Name string
	// BandwidthGBs is the memory bandwidth in GB/s (1e9 bytes per second).
	BandwidthGBs float64
	// FP16TFLOPS is the dense fp16/bf16 tensor rate in TFLOPS (1e12 FLOP/s).
	FP16TFLOPS float64
	// FP8TFLOPS is the dense fp8 tensor rate; zero means the GPU has no fp8
	// units and fp8 runs at the fp16 rate.
	FP8TFLOPS float64
	// INT8TOPS is the dense int8 tensor rate; zero means int8 runs at the
	// fp16 rate.
	INT8TOPS float64
	// MemoryGB is the device memory in GB (1e9 bytes).
	MemoryGB float64
	// HostLinkGBs is the bandwidth to host memory in GB/s, one direction
	// (PCIe 4.0 x16 ≈ 32, PCIe 5.0 x16 ≈ 64); KV cache offloaded to the
	// host is read back over it. On unified memory it equals BandwidthGBs.
	HostLinkGBs float64
	// VectorTFLOPS is the dense fp32 rate of the general-purpose (non-tensor)
	// units in TFLOPS: what dequantizing weight-only formats runs on. Zero
	// means FP16TFLOPS / 8.
	VectorTFLOPS float64
	// PeerLinkGBs is the bandwidth between two GPUs of one server in GB/s,
	// one direction (NVLink: 300 on A100 SXM, 450 on H100 SXM); zero means
	// the GPUs talk over the host link (PCIe). Tensor-parallel all-reduces
	// run over it.
	PeerLinkGBs float64
	// PeerLinkLatency is the latency of one all-reduce over the peer link;
	// zero means the runtime class's default for the link (NVLink or PCIe).
	PeerLinkLatency time.Duration
	// Memory is the kind of memory the weights stream from; zero means
	// MemoryHBM. It picks the achievable share of BandwidthGBs.
	Memory MemoryKind
	// Arch is the compute architecture; zero means ArchHopper. It picks the
	// achievable share of the tensor rate.
	Arch Arch
	// Source says where the figures come from.
	Source string
}

// MemoryKind is the kind of memory a device streams weights from. Kinds
// differ in the share of datasheet bandwidth a decode step reaches.
type MemoryKind int

const (
	// MemoryHBM is stacked high-bandwidth memory (A100, H100, H200, B200,
	// MI300X).
	MemoryHBM MemoryKind = iota
	// MemoryGDDR is graphics memory on a PCIe card (RTX 3090/4090, L4, L40S,
	// A10G).
	MemoryGDDR
	// MemoryUnified is a system-on-chip's LPDDR shared by CPU and GPU
	// (Apple M-series GPUs).
	MemoryUnified
	// MemoryDRAM is CPU main memory (DDR or LPDDR read by CPU cores).
	MemoryDRAM
)

// String returns the kind's short name: hbm, gddr, unified or dram.
func (k MemoryKind) String() string {
	return [...]string{"hbm", "gddr", "unified", "dram"}[min(max(int(k), 0), 3)]
}

// Arch is a compute architecture. Architectures differ in the share of the
// datasheet tensor rate their matrix multiplications reach.
type Arch int

const (
	// ArchHopper is NVIDIA Hopper and Blackwell data-centre GPUs.
	ArchHopper Arch = iota
	// ArchAmpere is NVIDIA Ampere (A100, A10G, RTX 30-series).
	ArchAmpere
	// ArchAda is NVIDIA Ada Lovelace (RTX 40-series, L4, L40S).
	ArchAda
	// ArchCDNA is AMD Instinct (MI300X).
	ArchCDNA
	// ArchApple is an Apple M-series GPU.
	ArchApple
	// ArchCPU is CPU cores (SIMD units).
	ArchCPU
)

// String returns the architecture's short name, e.g. hopper or cpu.
func (a Arch) String() string {
	return [...]string{"hopper", "ampere", "ada", "cdna", "apple", "cpu"}[min(max(int(a), 0), 5)]
}

// vectorTFLOPS is VectorTFLOPS or its default.
func (g GPU) vectorTFLOPS() float64 {
	if g.VectorTFLOPS > 0 {
		return g.VectorTFLOPS
	}
	return g.FP16TFLOPS / 8
}

// separateVectorUnits reports whether the general-purpose units that
// unpack weight-only formats are apart from the matrix units, so that a
// fused kernel unpacks the next tile while the matrix units and the memory
// read work on the current one: a GPU with tensor cores. Where the vector
// rate is the matrix rate (CPUs, Apple GPUs) the same units do both.
func (g GPU) separateVectorUnits() bool { return g.vectorTFLOPS() < g.FP16TFLOPS }

// peerLinkGBs is PeerLinkGBs or, without a peer link, the host link.
func (g GPU) peerLinkGBs() float64 {
	if g.PeerLinkGBs > 0 {
		return g.PeerLinkGBs
	}
	return g.HostLinkGBs
}

// NVLink reports whether the GPUs of a server talk over a peer link faster
// than their host link.
func (g GPU) NVLink() bool { return g.PeerLinkGBs > g.HostLinkGBs }

// TFLOPS is the dense tensor rate for c, falling back to the fp16 rate where
// the GPU lacks the units.
func (g GPU) TFLOPS(c ComputeClass) float64 {
	switch c {
	case ComputeFP8:
		if g.FP8TFLOPS > 0 {
			return g.FP8TFLOPS
		}
	case ComputeINT8:
		if g.INT8TOPS > 0 {
			return g.INT8TOPS
		}
	}
	return g.FP16TFLOPS
}

// Validate reports an impossible GPU: a non-positive bandwidth, rate or
// memory size.
func (g GPU) Validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"GPU bandwidth (GB/s)", g.BandwidthGBs}, {"GPU TFLOPS", g.FP16TFLOPS}, {"GPU memory (GB)", g.MemoryGB}, {"GPU host link (GB/s)", g.HostLinkGBs}} {
		if !(f.v > 0) || math.IsInf(f.v, 1) {
			return &InvalidError{Field: f.name, Value: f.v, Reason: "must be positive and finite"}
		}
	}
	if !(g.FP8TFLOPS >= 0) || !(g.INT8TOPS >= 0) || math.IsInf(g.FP8TFLOPS, 1) || math.IsInf(g.INT8TOPS, 1) {
		return &InvalidError{Field: "GPU fp8/int8 TFLOPS", Value: [2]float64{g.FP8TFLOPS, g.INT8TOPS}, Reason: "must be finite and not negative"}
	}
	if !(g.VectorTFLOPS >= 0) || !(g.PeerLinkGBs >= 0) || math.IsInf(g.VectorTFLOPS, 1) || math.IsInf(g.PeerLinkGBs, 1) {
		return &InvalidError{Field: "GPU vector TFLOPS / peer link (GB/s)", Value: [2]float64{g.VectorTFLOPS, g.PeerLinkGBs}, Reason: "must be finite and not negative"}
	}
	if g.PeerLinkLatency < 0 {
		return &InvalidError{Field: "GPU peer link latency", Value: g.PeerLinkLatency, Reason: "must not be negative"}
	}
	if g.Memory < MemoryHBM || g.Memory > MemoryDRAM || g.Arch < ArchHopper || g.Arch > ArchCPU {
		return &InvalidError{Field: "GPU memory kind / architecture", Value: [2]int{int(g.Memory), int(g.Arch)}, Reason: "unknown"}
	}
	return nil
}

// GPUs returns the catalog of GPUs.
func GPUs() []GPU { return values(gpuCatalog) }

// LookupGPU finds a GPU by name or alias, ignoring case and punctuation
// ("H100", "h100-sxm", "4090", "a100-80gb", "mi300x", "m4-max"). An unknown
// name yields a *UnknownNameError listing the known names.
func LookupGPU(name string) (GPU, error) {
	return lookup("GPU", gpuCatalog, name, func(g GPU) string { return g.Name })
}

package simulate

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/tokenpace/tokenpace/simulate/internal/sigfig"
)

// GPUSpec describes a device by the figures a datasheet (or a user)
// gives: what the hardware flags of tokenpace predict, sim, bench and
// calibrate set. BandwidthGBs, TFLOPS and MemoryGB are required; every
// other zero field takes a default derived from what is given, and
// GPU reports each default it took, so a user sees what to measure.
// A spec that gives every field of a catalog entry yields that entry.
type GPUSpec struct {
	// Name is free text; empty means "custom".
	Name string
	// BandwidthGBs is the memory bandwidth in GB/s.
	BandwidthGBs float64
	// TFLOPS is the dense fp16/bf16 tensor rate in TFLOPS (or the rate at
	// the weights' precision when FP8TFLOPS and INT8TOPS are not given).
	TFLOPS float64
	// MemoryGB is the device memory in GB.
	MemoryGB float64
	// FP8TFLOPS and INT8TOPS are the dense fp8 and int8 rates; zero means
	// TFLOPS.
	FP8TFLOPS, INT8TOPS float64
	// Memory is the memory class: "hbm", "gddr", "unified" or "dram";
	// empty means hbm. It picks the achievable share of bandwidth and the
	// defaults of the fields below.
	Memory string
	// Arch is the efficiency class of the compute units: "hopper",
	// "ampere", "ada", "cdna", "apple" or "cpu"; empty means hopper for
	// hbm, ada for gddr, apple for unified and cpu for dram memory.
	Arch string
	// VectorTFLOPS is the non-tensor fp32 rate; zero means TFLOPS where
	// the same units do both (unified or dram memory, apple or cpu arch),
	// TFLOPS / 2.5 on a graphics card (gddr: RTX 3090/4090, L40S) and
	// TFLOPS / 15 on an hbm data-centre GPU (A100, H100), the catalog's
	// typical ratios.
	VectorTFLOPS float64
	// HostLinkGBs is the link to host memory in GB/s; zero means the
	// memory bandwidth on unified or dram memory, 64 (PCIe 5.0 x16) for
	// hopper and cdna, else 32 (PCIe 4.0 x16).
	HostLinkGBs float64
	// Interconnect is the link between the GPUs of a server: "nvlink"
	// (NVLink-class for the arch: 300 GB/s ampere, 450 hopper, 448 cdna),
	// "pcie" (the host link) or a bandwidth in GB/s per direction; empty
	// means nvlink for an hbm data-centre GPU, pcie otherwise.
	Interconnect string
	// InterconnectLatency is the latency of one all-reduce over the
	// interconnect; zero means the runtime class's default for the link.
	InterconnectLatency time.Duration
}

// Assumption is one figure of a deployment that was not given and the
// default it took.
type Assumption struct {
	// Field names the figure as the flags do, e.g. "interconnect".
	Field string
	// Value is the default, e.g. "450 GB/s (nvlink-class)".
	Value string
	// Why says where the default comes from.
	Why string
}

// String is "interconnect = 450 GB/s (nvlink-class): default for an hbm
// GPU".
func (a Assumption) String() string { return a.Field + " = " + a.Value + ": " + a.Why }

var memoryKinds = map[string]MemoryKind{"hbm": MemoryHBM, "gddr": MemoryGDDR, "unified": MemoryUnified, "dram": MemoryDRAM}

var archs = map[string]Arch{"hopper": ArchHopper, "blackwell": ArchHopper, "ampere": ArchAmpere, "ada": ArchAda, "cdna": ArchCDNA, "apple": ArchApple, "cpu": ArchCPU}

// nvlinkGBs is the NVLink-class peer bandwidth per direction by arch.
func nvlinkGBs(a Arch) float64 {
	switch a {
	case ArchAmpere:
		return 300
	case ArchCDNA:
		return 448
	}
	return 450
}

// GPU builds the device s describes and lists the defaults it took. A
// missing or impossible figure, or an unknown class name, yields an
// *InvalidError naming the accepted values.
func (s GPUSpec) GPU() (GPU, []Assumption, error) {
	if err := s.check(); err != nil {
		return GPU{}, nil, err
	}
	var as []Assumption
	assume := func(field, value, why string) { as = append(as, Assumption{field, value, why}) }
	g := GPU{Name: s.Name, BandwidthGBs: s.BandwidthGBs, FP16TFLOPS: s.TFLOPS, MemoryGB: s.MemoryGB, Source: "user-supplied figures", PeerLinkLatency: s.InterconnectLatency}
	if g.Name == "" {
		g.Name = "custom"
	}
	mem := strings.ToLower(strings.TrimSpace(s.Memory))
	if mem == "" {
		mem = "hbm"
		assume("memory-class", mem, "default (say gddr for a graphics card, unified for Apple silicon, dram for CPU cores)")
	}
	var ok bool
	if g.Memory, ok = memoryKinds[mem]; !ok {
		return GPU{}, nil, &InvalidError{Field: "memory class", Value: s.Memory, Reason: "unknown (known: hbm, gddr, unified, dram)"}
	}
	arch := strings.ToLower(strings.TrimSpace(s.Arch))
	if arch == "" {
		arch = [...]string{"hopper", "ada", "apple", "cpu"}[g.Memory]
		assume("arch", arch, "from memory class "+mem)
	}
	if g.Arch, ok = archs[arch]; !ok {
		return GPU{}, nil, &InvalidError{Field: "arch", Value: s.Arch, Reason: "unknown (known: hopper, blackwell, ampere, ada, cdna, apple, cpu)"}
	}
	shared := g.Memory == MemoryUnified || g.Memory == MemoryDRAM || g.Arch == ArchApple || g.Arch == ArchCPU
	g.FP8TFLOPS, g.INT8TOPS = orF(s.FP8TFLOPS, s.TFLOPS), orF(s.INT8TOPS, s.TFLOPS)
	if s.FP8TFLOPS == 0 && s.INT8TOPS == 0 && !shared {
		assume("fp8-tflops, int8-tops", sigfig.Num(s.TFLOPS), "= --tflops (give them when the weights' precision runs faster than fp16)")
	}
	switch {
	case s.VectorTFLOPS > 0:
		g.VectorTFLOPS = s.VectorTFLOPS
	case shared:
		g.VectorTFLOPS = s.TFLOPS
		assume("vector-tflops", sigfig.Num(g.VectorTFLOPS), "= --tflops: the same units unpack and multiply")
	case g.Memory == MemoryGDDR:
		g.VectorTFLOPS = s.TFLOPS / 2.5
		assume("vector-tflops", sigfig.Num(g.VectorTFLOPS), "--tflops / 2.5, a graphics card's typical ratio")
	default:
		g.VectorTFLOPS = s.TFLOPS / 15
		assume("vector-tflops", sigfig.Num(g.VectorTFLOPS), "--tflops / 15, a data-centre GPU's typical ratio")
	}
	switch {
	case s.HostLinkGBs > 0:
		g.HostLinkGBs = s.HostLinkGBs
	case g.Memory == MemoryUnified || g.Memory == MemoryDRAM:
		g.HostLinkGBs = s.BandwidthGBs
		assume("host-link-gbs", sigfig.Num(g.HostLinkGBs), "= --bandwidth-gbs: host memory is the device memory")
	case g.Arch == ArchHopper || g.Arch == ArchCDNA:
		g.HostLinkGBs = 64
		assume("host-link-gbs", "64", "PCIe 5.0 x16")
	default:
		g.HostLinkGBs = 32
		assume("host-link-gbs", "32", "PCIe 4.0 x16")
	}
	var err error
	if g.PeerLinkGBs, err = s.peerLink(g, mem, assume); err != nil {
		return GPU{}, nil, err
	}
	if s.InterconnectLatency == 0 {
		assume("interconnect-latency", "runtime class default", "the engine's all-reduce latency over the link")
	}
	return g, as, g.Validate()
}

// check returns an *InvalidError for the first figure of s out of its
// range: bandwidth, TFLOPS and memory positive, the other rates not
// negative, all finite.
func (s GPUSpec) check() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"bandwidth (GB/s)", s.BandwidthGBs}, {"TFLOPS", s.TFLOPS}, {"memory (GB)", s.MemoryGB}} {
		if !(f.v > 0) || math.IsInf(f.v, 1) {
			return &InvalidError{Field: "GPU " + f.name, Value: f.v, Reason: "must be positive and finite"}
		}
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"fp8 TFLOPS", s.FP8TFLOPS}, {"int8 TOPS", s.INT8TOPS}, {"vector TFLOPS", s.VectorTFLOPS}, {"host link (GB/s)", s.HostLinkGBs}} {
		if !(f.v >= 0) || math.IsInf(f.v, 1) {
			return &InvalidError{Field: "GPU " + f.name, Value: f.v, Reason: "must be finite and not negative"}
		}
	}
	if s.InterconnectLatency < 0 {
		return &InvalidError{Field: "GPU interconnect latency", Value: s.InterconnectLatency, Reason: "must not be negative"}
	}
	return nil
}

// peerLink returns the bandwidth between g's peers (GB/s; 0 for none
// but the host link) that s's interconnect names, or the default of g's
// memory class mem, noted by assume.
func (s GPUSpec) peerLink(g GPU, mem string, assume func(field, value, why string)) (float64, error) {
	ic := strings.ToLower(strings.TrimSpace(s.Interconnect))
	if ic == "" && g.Memory == MemoryHBM {
		ic = "nvlink"
		assume("interconnect", sigfig.Num(nvlinkGBs(g.Arch))+" GB/s (nvlink-class)", "default for an hbm data-centre GPU (say pcie for PCIe cards)")
	} else if ic == "" {
		ic = "pcie"
		assume("interconnect", "pcie ("+sigfig.Num(g.HostLinkGBs)+" GB/s host link)", "default for "+mem+" memory")
	}
	switch ic {
	case "nvlink":
		return nvlinkGBs(g.Arch), nil
	case "pcie", "none":
		return 0, nil
	}
	v, err := strconv.ParseFloat(strings.TrimSuffix(ic, "gb/s"), 64)
	if err != nil || !(v > 0) || math.IsInf(v, 1) {
		return 0, &InvalidError{Field: "interconnect", Value: s.Interconnect, Reason: "want nvlink, pcie or a bandwidth in GB/s"}
	}
	return v, nil
}

// Spec returns the datasheet description of g: every figure given, so
// that Spec().GPU() is g again.
func (g GPU) Spec() GPUSpec {
	ic := "pcie"
	if g.PeerLinkGBs > 0 {
		ic = strconv.FormatFloat(g.PeerLinkGBs, 'g', -1, 64)
	}
	return GPUSpec{
		Name: g.Name, BandwidthGBs: g.BandwidthGBs, TFLOPS: g.FP16TFLOPS, MemoryGB: g.MemoryGB,
		FP8TFLOPS: g.TFLOPS(ComputeFP8), INT8TOPS: g.TFLOPS(ComputeINT8), Memory: g.Memory.String(), Arch: g.Arch.String(),
		VectorTFLOPS: g.vectorTFLOPS(), HostLinkGBs: g.HostLinkGBs, Interconnect: ic, InterconnectLatency: g.PeerLinkLatency,
	}
}

// String is the flags that describe s, e.g. "--bandwidth-gbs 3350
// --tflops 989 --memory-gb 80 --memory-class hbm".
func (s GPUSpec) String() string {
	var b strings.Builder
	add := func(flag, v string) {
		if v != "" && v != "0" && v != "0s" {
			fmt.Fprintf(&b, " --%s %s", flag, v)
		}
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	add("bandwidth-gbs", f(s.BandwidthGBs))
	add("tflops", f(s.TFLOPS))
	add("memory-gb", f(s.MemoryGB))
	add("fp8-tflops", f(s.FP8TFLOPS))
	add("int8-tops", f(s.INT8TOPS))
	add("memory-class", s.Memory)
	add("arch", s.Arch)
	add("vector-tflops", f(s.VectorTFLOPS))
	add("host-link-gbs", f(s.HostLinkGBs))
	add("interconnect", s.Interconnect)
	add("interconnect-latency", s.InterconnectLatency.String())
	return strings.TrimPrefix(b.String(), " ")
}

// CustomGPU is a GPU from plain numbers: memory bandwidth in GB/s, the dense
// tensor rate in TFLOPS at the precision the model runs at (used for every
// compute class), and memory in GB; every other figure takes GPUSpec's
// defaults for an hbm data-centre GPU (NVLink-class interconnect, PCIe 5.0
// host link). Use GPUSpec to give more.
func CustomGPU(bandwidthGBs, tflops, memoryGB float64) (GPU, error) {
	g, _, err := GPUSpec{BandwidthGBs: bandwidthGBs, TFLOPS: tflops, MemoryGB: memoryGB}.GPU()
	return g, err
}

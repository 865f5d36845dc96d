package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
)

// deploymentFlags is the model and hardware flag set shared by predict, sim
// and bench's embedded simulator.
type deploymentFlags struct {
	fs *flag.FlagSet

	file string // --deployment: a deployment file written by calibrate

	model     string
	precision string
	paramsB   float64
	bits      float64
	layers    int
	vocab     int
	tied      bool
	kvHeads   int
	headDim   int
	hidden    int

	gpu          string
	bandwidthGBs float64
	tflops       float64
	memoryGB     float64
	gpus         int
	// Hardware figures beyond the three a custom GPU needs; with --gpu they
	// replace the catalog's.
	fp8TFLOPS, int8TOPS, vectorTFLOPS, hostLinkGBs float64
	memoryClass, arch, interconnect                string
	interconnectLatency                            time.Duration

	// assumptions lists the hardware figures the last deployment() call
	// defaulted.
	assumptions []simulate.Assumption

	mbu, mfu       float64
	allReduceShare float64
	runtime        string

	maxRunning, maxBatched, kvTokens int
	kvPolicy                         string
	noPrefixCache                    bool
	draftTokens                      int
	draftAcceptance, draftCost       float64
	stepOverhead                     time.Duration
}

// addDeploymentFlags registers the model and hardware flags on fs. With no
// flag set, deployment() is Llama 3.1 8B at bf16 on one H100 SXM.
func addDeploymentFlags(fs *flag.FlagSet) *deploymentFlags {
	f := &deploymentFlags{fs: fs}
	fs.StringVar(&f.file, "deployment", "", "deployment file written by tokenpace calibrate (instead of the model and hardware flags)")
	fs.StringVar(&f.model, "model", "", "catalog model name (default llama-3.1-8b), e.g. llama-3.1-70b, mixtral-8x7b, qwen2.5-7b")
	fs.StringVar(&f.precision, "precision", "", "weight precision name: bf16, fp16, fp8, int8, int4, q4_0, q4_k_m, q8_0, ... (default bf16)")
	fs.Float64Var(&f.paramsB, "params-b", 0, "custom model: parameters in billions (instead of --model)")
	fs.Float64Var(&f.bits, "bits", 0, "bits per weight (instead of --precision), e.g. 4 or 4.85")
	fs.IntVar(&f.layers, "layers", 0, "custom model: layers (default: from the catalog model nearest in size)")
	fs.IntVar(&f.kvHeads, "kv-heads", 0, "custom model: key/value heads (default: nearest catalog model)")
	fs.IntVar(&f.headDim, "head-dim", 0, "custom model: head dimension (default: nearest catalog model)")
	fs.IntVar(&f.hidden, "hidden", 0, "custom model: hidden size (default: nearest catalog model)")
	fs.IntVar(&f.vocab, "vocab", 0, "custom model: vocabulary size; with it the input embedding is looked up rather than streamed, and a prompt computes logits for its last token only (default: not given, every parameter streamed and multiplied for every token)")
	fs.BoolVar(&f.tied, "tied-embeddings", false, "custom model: the input embedding is the output projection's matrix (Llama 3.2 1B/3B, small Qwen2.5, Gemma)")
	fs.StringVar(&f.gpu, "gpu", "", "catalog GPU name (default h100-sxm), e.g. rtx-4090, a100-80gb, l40s, mi300x, m2-ultra")
	fs.Float64Var(&f.bandwidthGBs, "bandwidth-gbs", 0, "custom GPU: memory bandwidth in GB/s per GPU (instead of --gpu)")
	fs.Float64Var(&f.tflops, "tflops", 0, "custom GPU: dense TFLOPS per GPU at the weights' precision")
	fs.Float64Var(&f.memoryGB, "memory-gb", 0, "custom GPU: memory in GB per GPU")
	fs.IntVar(&f.gpus, "gpus", 1, "GPUs for tensor parallelism (a count that splits the model's heads, as the engines require)")
	fs.Float64Var(&f.fp8TFLOPS, "fp8-tflops", 0, "dense fp8 TFLOPS per GPU (default: --tflops for a custom GPU)")
	fs.Float64Var(&f.int8TOPS, "int8-tops", 0, "dense int8 TOPS per GPU (default: --tflops for a custom GPU)")
	fs.Float64Var(&f.vectorTFLOPS, "vector-tflops", 0, "non-tensor fp32 TFLOPS per GPU, what unpacks weight-only formats (default: --tflops on unified or dram memory, --tflops/2.5 on gddr, --tflops/15 on hbm)")
	fs.Float64Var(&f.hostLinkGBs, "host-link-gbs", 0, "link to host memory in GB/s, one direction (default: --bandwidth-gbs on unified or dram memory, 64 for hopper and cdna, else 32)")
	fs.StringVar(&f.memoryClass, "memory-class", "", "memory class: hbm, gddr (graphics cards), unified (Apple silicon) or dram (CPU cores) (default hbm for a custom GPU)")
	fs.StringVar(&f.arch, "arch", "", "efficiency class of the compute units: hopper, blackwell, ampere, ada, cdna, apple or cpu (default: hopper for hbm, ada for gddr, apple for unified, cpu for dram)")
	fs.StringVar(&f.interconnect, "interconnect", "", "link between the GPUs: nvlink (NVLink-class for --arch), pcie (the host link) or a bandwidth in GB/s per direction, the datasheet figure: an all-reduce reaches the share of it fitted for the link class (default: nvlink for hbm, pcie otherwise)")
	fs.DurationVar(&f.interconnectLatency, "interconnect-latency", 0, "latency of one all-reduce over the interconnect, e.g. 20us (default: the runtime's for the link)")
	fs.Float64Var(&f.allReduceShare, "all-reduce-share", 0, "share of the interconnect's bandwidth a tensor-parallel all-reduce reaches, in (0, 1], e.g. nccl-tests' all_reduce bus bandwidth over the link's (default: the class's for the link, fitted on published measurements)")
	fs.Float64Var(&f.mbu, "mbu", 0, "memory bandwidth utilisation in (0, 1] (default: the runtime's calibrated value)")
	fs.Float64Var(&f.mfu, "mfu", 0, "FLOPs utilisation in (0, 1] (default: the runtime's calibrated value)")
	fs.IntVar(&f.maxRunning, "max-running", 0, "most sequences batched at once (default 256)")
	fs.IntVar(&f.maxBatched, "max-batched-tokens", 0, "most tokens per step; prefill is chunked to fit (default 8192)")
	fs.IntVar(&f.kvTokens, "kv-tokens", 0, "KV-cache capacity in tokens (default: from memory left after the weights)")
	fs.StringVar(&f.kvPolicy, "kv-policy", "offload", "when the KV cache is full: offload (to host memory over the host link) or preempt")
	fs.BoolVar(&f.noPrefixCache, "no-prefix-cache", false, "disable prefix caching")
	fs.IntVar(&f.draftTokens, "draft-tokens", 0, "speculative decoding: draft length k (0: off)")
	fs.Float64Var(&f.draftAcceptance, "draft-acceptance", 0.7, "speculative decoding, with --draft-tokens (refused without it): acceptance rate α in [0, 1)")
	fs.Float64Var(&f.draftCost, "draft-cost", 0, "speculative decoding, with --draft-tokens (refused without it): draft step time as a fraction of a target step")
	fs.DurationVar(&f.stepOverhead, "step-overhead", 0, "fixed time per step (default: the runtime's calibrated value); 0 means no host time at all: none per step, per decoding sequence or in the server's front end")
	fs.StringVar(&f.runtime, "runtime", "", "serving engine whose efficiency defaults apply: vllm (also sglang, trtllm, tensorrt-llm, nim, gpt-fast, mlc, exllamav2, tgi3), llama.cpp (also ollama, lm-studio) or eager (also tgi for TGI 1.x, transformers) (default: llama.cpp for GGUF precisions, else vllm)")
	return f
}

func (f *deploymentFlags) set() map[string]bool {
	set := map[string]bool{}
	f.fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	return set
}

// deployment builds the Deployment the flags describe, or a clear error for
// unknown names, conflicting flags and impossible figures (negative values,
// weights that do not fit in memory).
func (f *deploymentFlags) deployment() (simulate.Deployment, error) {
	set := f.set()
	if f.file != "" {
		for name := range set {
			if name != "deployment" && deploymentFlagNames[name] {
				return simulate.Deployment{}, fmt.Errorf("--deployment and --%s exclude each other: the file describes the whole deployment", name)
			}
		}
		file, err := readDeploymentFile(f.file)
		if err != nil {
			return simulate.Deployment{}, err
		}
		return file.Deployment.Resolved()
	}
	if err := f.checkHardware(set); err != nil {
		return simulate.Deployment{}, err
	}
	var d simulate.Deployment
	var err error
	if d.Model, d.Precision, err = f.modelAndPrecision(set); err != nil {
		return d, err
	}
	if d.GPU, err = f.gpuFromFlags(set); err != nil {
		return d, err
	}
	if err := f.setEngine(&d, set); err != nil {
		return d, err
	}
	return d.Resolved()
}

// checkHardware refuses model and hardware flags that exclude each other
// or are out of range.
func (f *deploymentFlags) checkHardware(set map[string]bool) error {
	for _, c := range [][2]string{{"model", "params-b"}, {"gpu", "bandwidth-gbs"}, {"gpu", "tflops"}, {"gpu", "memory-gb"}, {"precision", "bits"}} {
		if set[c[0]] && set[c[1]] {
			return fmt.Errorf("--%s and --%s exclude each other", c[0], c[1])
		}
	}
	for _, name := range []string{"layers", "kv-heads", "head-dim", "hidden", "vocab", "tied-embeddings"} {
		if set[name] && !set["params-b"] {
			return fmt.Errorf("--%s describes a custom model: use it with --params-b", name)
		}
	}
	for _, v := range []struct {
		name string
		v    float64
	}{{"params-b", f.paramsB}, {"bits", f.bits}, {"bandwidth-gbs", f.bandwidthGBs}, {"tflops", f.tflops}, {"memory-gb", f.memoryGB}, {"mbu", f.mbu}, {"mfu", f.mfu}, {"all-reduce-share", f.allReduceShare},
		{"layers", float64(f.layers)}, {"kv-heads", float64(f.kvHeads)}, {"head-dim", float64(f.headDim)}, {"hidden", float64(f.hidden)}, {"vocab", float64(f.vocab)}, {"gpus", float64(f.gpus)}} {
		if v.v < 0 || (set[v.name] && v.v == 0) {
			return fmt.Errorf("--%s must be positive, got %v", v.name, v.v)
		}
	}
	return nil
}

// modelAndPrecision returns the model and the weights' precision the
// flags give: a catalog entry, or a custom one.
func (f *deploymentFlags) modelAndPrecision(set map[string]bool) (m simulate.Model, p simulate.Precision, err error) {
	switch {
	case set["params-b"]:
		m, err = simulate.CustomModel(f.paramsB, simulate.ModelShape{Layers: f.layers, Hidden: f.hidden, KVHeads: f.kvHeads, HeadDim: f.headDim,
			Vocab: f.vocab, TiedEmbeddings: f.tied})
	case f.model != "":
		m, err = simulate.LookupModel(f.model)
	default:
		m, err = simulate.LookupModel("llama-3.1-8b")
	}
	if err != nil {
		return m, p, err
	}

	switch {
	case set["bits"]:
		p, err = simulate.CustomPrecision(f.bits)
	case f.precision != "":
		p, err = simulate.LookupPrecision(f.precision)
	default:
		p = simulate.BF16
	}
	if err != nil {
		return m, p, err
	}

	return m, p, nil
}

// setEngine sets what the flags say of the serving engine: its name,
// batch and KV limits, speculation, step overhead, GPUs and efficiencies.
func (f *deploymentFlags) setEngine(d *simulate.Deployment, set map[string]bool) error {
	if f.runtime != "" {
		var err error
		if d.Runtime, err = simulate.ParseRuntime(f.runtime); err != nil {
			return fmt.Errorf("unknown --runtime %q (known: %s)", f.runtime, strings.Join(simulate.RuntimeNames(), ", "))
		}
	}
	for _, v := range []struct {
		name string
		v    int
	}{{"max-running", f.maxRunning}, {"max-batched-tokens", f.maxBatched}, {"kv-tokens", f.kvTokens}, {"draft-tokens", f.draftTokens}} {
		if v.v < 0 || (set[v.name] && v.v == 0 && v.name != "draft-tokens") {
			return fmt.Errorf("--%s must be positive, got %d", v.name, v.v)
		}
	}
	if f.stepOverhead < 0 {
		return fmt.Errorf("--step-overhead must not be negative, got %v", f.stepOverhead)
	}
	switch f.kvPolicy {
	case "offload":
		d.KVPolicy = simulate.KVOffload
	case "preempt":
		d.KVPolicy = simulate.KVPreempt
	default:
		return fmt.Errorf("unknown --kv-policy %q (known: offload, preempt)", f.kvPolicy)
	}
	d.MaxRunning, d.MaxBatchedTokens, d.KVCapacityTokens = f.maxRunning, f.maxBatched, f.kvTokens
	d.DisablePrefixCaching = f.noPrefixCache
	for _, name := range []string{"draft-acceptance", "draft-cost"} {
		if set[name] && f.draftTokens == 0 {
			return fmt.Errorf("--%s shapes speculative decoding, which only --draft-tokens (a draft length of 1 or more) turns on; without it the figure would be ignored", name)
		}
	}
	if f.draftTokens > 0 {
		d.Speculation = simulate.Speculation{DraftTokens: f.draftTokens, Acceptance: f.draftAcceptance, DraftCost: f.draftCost}
	}
	d.StepOverhead = f.stepOverhead
	if set["step-overhead"] && f.stepOverhead == 0 {
		d.StepOverhead = -1 // an explicit 0 means none
	}
	d.GPUs = f.gpus
	d.MBU, d.MFU, d.AllReduceShare = f.mbu, f.mfu, f.allReduceShare
	return nil
}

// gpuFromFlags is the GPU the hardware flags describe: a catalog entry
// (--gpu, default h100-sxm) with any figure a flag gives replaced, or a
// custom GPU from --bandwidth-gbs, --tflops and --memory-gb with the
// figures not given defaulted. It records the defaults in f.assumptions.
func (f *deploymentFlags) gpuFromFlags(set map[string]bool) (simulate.GPU, error) {
	f.assumptions = nil
	for _, v := range []struct {
		name string
		v    float64
	}{{"fp8-tflops", f.fp8TFLOPS}, {"int8-tops", f.int8TOPS}, {"vector-tflops", f.vectorTFLOPS}, {"host-link-gbs", f.hostLinkGBs}} {
		if v.v < 0 || (set[v.name] && v.v == 0) {
			return simulate.GPU{}, fmt.Errorf("--%s must be positive, got %v", v.name, v.v)
		}
	}
	if f.interconnectLatency < 0 || (set["interconnect-latency"] && f.interconnectLatency == 0) {
		return simulate.GPU{}, fmt.Errorf("--interconnect-latency must be positive, got %v", f.interconnectLatency)
	}
	custom := set["bandwidth-gbs"] || set["tflops"] || set["memory-gb"]
	var spec simulate.GPUSpec
	switch {
	case custom:
		if !(set["bandwidth-gbs"] && set["tflops"] && set["memory-gb"]) {
			return simulate.GPU{}, fmt.Errorf("a custom GPU needs all of --bandwidth-gbs, --tflops and --memory-gb")
		}
		spec = simulate.GPUSpec{BandwidthGBs: f.bandwidthGBs, TFLOPS: f.tflops, MemoryGB: f.memoryGB}
	default:
		name := f.gpu
		if name == "" {
			name = "h100-sxm"
		}
		g, err := simulate.LookupGPU(name)
		if err != nil {
			return g, err
		}
		overrides := false
		for _, n := range []string{"fp8-tflops", "int8-tops", "vector-tflops", "host-link-gbs", "memory-class", "arch", "interconnect", "interconnect-latency"} {
			overrides = overrides || set[n]
		}
		if !overrides {
			return g, nil
		}
		spec = g.Spec()
	}
	if set["fp8-tflops"] {
		spec.FP8TFLOPS = f.fp8TFLOPS
	}
	if set["int8-tops"] {
		spec.INT8TOPS = f.int8TOPS
	}
	if set["vector-tflops"] {
		spec.VectorTFLOPS = f.vectorTFLOPS
	}
	if set["host-link-gbs"] {
		spec.HostLinkGBs = f.hostLinkGBs
	}
	if set["memory-class"] {
		spec.Memory = f.memoryClass
	}
	if set["arch"] {
		spec.Arch = f.arch
	}
	if set["interconnect"] {
		spec.Interconnect = f.interconnect
	}
	if set["interconnect-latency"] {
		spec.InterconnectLatency = f.interconnectLatency
	}
	g, as, err := spec.GPU()
	if err != nil {
		return g, err
	}
	if !custom {
		g.Name += " (modified)"
		as = nil
	}
	f.assumptions = as
	return g, nil
}

// deploymentFileVersion is the version of the deployment file format.
const deploymentFileVersion = 1

// deploymentFile is what calibrate writes and --deployment reads: a
// resolved simulate.Deployment (its Go field names; durations in
// nanoseconds) and, when calibrate wrote it, how the fit went.
type deploymentFile struct {
	Version     int                 `json:"version"`
	Deployment  simulate.Deployment `json:"deployment"`
	Calibration *calibrationJSON    `json:"calibration,omitempty"`
}

// maxDeploymentFile bounds the file read (a deployment is a few KB).
const maxDeploymentFile = 1 << 20

// readDeploymentFile reads and checks a deployment file.
func readDeploymentFile(path string) (deploymentFile, error) {
	var f deploymentFile
	b, err := os.ReadFile(path)
	if err != nil {
		return f, fmt.Errorf("--deployment: %w", err)
	}
	if len(b) > maxDeploymentFile {
		return f, fmt.Errorf("--deployment %s: %d bytes, more than a deployment file holds (%d)", path, len(b), maxDeploymentFile)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return f, fmt.Errorf("--deployment %s: not a deployment file: %w", path, err)
	}
	if f.Version != deploymentFileVersion {
		return f, fmt.Errorf("--deployment %s: version %d, want %d", path, f.Version, deploymentFileVersion)
	}
	return f, nil
}

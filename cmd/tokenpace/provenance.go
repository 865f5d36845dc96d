package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
)

// provenance splits the figures of the resolved deployment d into those
// the flags gave and those that took a default, each default with where it
// comes from: the catalog, the class of the hardware and runtime, or a
// rule of thumb for a custom GPU.
func (f *deploymentFlags) provenance(d simulate.Deployment) (given, defaulted []string) {
	set := f.set()
	if f.file != "" {
		return []string{"--deployment " + f.file + " (every figure)"}, nil
	}
	for _, name := range []string{"gpu", "bandwidth-gbs", "tflops", "memory-gb", "fp8-tflops", "int8-tops", "vector-tflops", "host-link-gbs",
		"memory-class", "arch", "interconnect", "interconnect-latency", "all-reduce-share", "gpus", "runtime", "mbu", "mfu", "step-overhead"} {
		if set[name] {
			given = append(given, fmt.Sprintf("--%s %s", name, f.fs.Lookup(name).Value.(flag.Getter).String()))
		}
	}
	if !set["bandwidth-gbs"] {
		defaulted = append(defaulted, fmt.Sprintf("hardware = catalog %s: %s", d.GPU.Name, d.GPU.Source))
	}
	if set["params-b"] && !set["vocab"] {
		defaulted = append(defaulted, "vocab = not given: the embedding counts as streamed weights and every prompt token computes logits (--vocab)")
	}
	if m := d.Model; set["params-b"] && d.GPUs > 1 && d.Runtime != simulate.RuntimeLlamaCpp && m.Heads%d.GPUs != 0 {
		defaulted = append(defaulted, fmt.Sprintf("heads = %d: hidden / head dimension (%d / %d), which %d GPUs do not divide; not refused, as a checkpoint's heads need not be that, but a tensor-parallel engine refuses to start unless the GPUs divide the model's own (config.json's num_attention_heads)",
			m.Heads, m.Hidden, m.HeadDim, d.GPUs))
	}
	for _, a := range f.assumptions {
		defaulted = append(defaulted, a.String())
	}
	class := fmt.Sprintf("class default for %s memory, %s arch, %s runtime", d.GPU.Memory, d.GPU.Arch, d.Runtime)
	if !set["mbu"] {
		defaulted = append(defaulted, fmt.Sprintf("mbu = %.3g: %s (cross-validated on published measurements)", d.MBU, class))
	}
	if !set["mfu"] {
		defaulted = append(defaulted, fmt.Sprintf("mfu = %.3g: %s", d.MFU, class))
	}
	if !set["all-reduce-share"] && d.GPUs > 1 && d.Runtime != simulate.RuntimeLlamaCpp {
		link := "a pcie"
		if d.GPU.NVLink() {
			link = "an nvlink-class"
		}
		defaulted = append(defaulted, fmt.Sprintf("all-reduce-share = %.3g: class default for %s link (fitted on published measurements)", d.AllReduceShare, link))
	}
	if !set["step-overhead"] {
		defaulted = append(defaulted, fmt.Sprintf("step-overhead = %v: %s runtime, %d layers", d.StepOverhead.Round(time.Microsecond), d.Runtime, d.Model.Layers))
	}
	if !set["runtime"] {
		defaulted = append(defaulted, fmt.Sprintf("runtime = %s: by precision (%s)", d.Runtime, d.Precision.Name))
	}
	return given, defaulted
}

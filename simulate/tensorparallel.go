package simulate

import (
	"fmt"
	"strconv"
	"strings"
)

// TensorParallelSizes returns the GPU counts from 1 to upTo over which a
// tensor-parallel engine (vLLM, SGLang, TensorRT-LLM) splits m: those that
// divide its attention heads and either divide its KV heads or are a
// whole multiple of them, each KV head then held whole on that many GPUs.
// vLLM refuses any other count at start (ModelConfig.
// verify_with_parallel_config: "Total number of attention heads … must be
// divisible by tensor parallel size"; QKVParallelLinear divides the KV
// heads by the count, or the count by the KV heads). A custom model's
// attention heads are assumed (see CustomModel), so only its KV heads
// are checked.
func (m Model) TensorParallelSizes(upTo int) []int {
	var sizes []int
	for n := 1; n <= upTo; n++ {
		if m.splitsOver(n) {
			sizes = append(sizes, n)
		}
	}
	return sizes
}

// splitsOver reports whether n GPUs split m's heads as TensorParallelSizes
// says.
func (m Model) splitsOver(n int) bool {
	h, kv := m.Heads, m.kvHeads()
	return n > 0 && (m.headsAssumed() || h%n == 0) && (kv%n == 0 || n%kv == 0)
}

// headsAssumed reports whether m's attention heads were not given but
// taken as its hidden size over its head dimension (CustomModel has no
// heads to take). Checkpoints differ from that often enough (Gemma 2 and
// 3, Qwen3, Mistral NeMo; Gemma 3 12B has 16 heads where 3840 / 256 gives
// 15) that a count refused on them could be one the engines start.
func (m Model) headsAssumed() bool { return m.Name == "custom" }

// CheckTensorParallel reports, as an *InvalidError naming the GPU counts
// that work, a deployment whose runtime splits every layer over its GPUs
// (RuntimeVLLM, RuntimeEager) when those GPUs do not split the model's
// heads (see Model.TensorParallelSizes). A runtime that splits by layers
// (RuntimeLlamaCpp) takes any count. A custom model's attention heads are
// assumed and not checked, only its KV heads. Zero fields take their
// defaults first.
func (d Deployment) CheckTensorParallel() error {
	d = d.withIdentity()
	n := orI(d.GPUs, 1)
	if d.Runtime == RuntimeLlamaCpp || n <= 1 || d.Model.Heads <= 0 || d.Model.splitsOver(n) {
		return nil
	}
	m := d.Model
	sizes := m.TensorParallelSizes(m.Heads)
	list := make([]string, len(sizes))
	for i, s := range sizes {
		list[i] = strconv.Itoa(s)
	}
	reason := fmt.Sprintf("%s has %d attention heads and %d KV heads: a tensor-parallel engine (vLLM, SGLang, TensorRT-LLM) refuses to start unless the GPUs divide the attention heads and divide the KV heads or are a multiple of them; GPU counts that do: %s",
		m.Name, m.Heads, m.kvHeads(), strings.Join(list, ", "))
	if m.headsAssumed() {
		reason = fmt.Sprintf("the custom model has %d KV heads: a tensor-parallel engine (vLLM, SGLang, TensorRT-LLM) refuses to start unless the GPUs divide them or are a multiple of them; GPU counts that do, up to its %d assumed attention heads: %s (the attention heads, not given, are taken as hidden size over head dimension, %d / %d, and not checked; %s)",
			m.kvHeads(), m.Heads, strings.Join(list, ", "), m.Hidden, m.headDim(), m.Source)
	}
	return &InvalidError{Field: "tensor-parallel GPU count", Value: n, Reason: reason}
}

// kvReplicas is how many GPUs hold each KV head: a tensor-parallel engine
// gives every GPU at least one whole KV head, so past the KV heads each is
// copied GPUs / KV heads times (vLLM's ModelConfig.get_num_kv_heads,
// max(1, KV heads / GPUs) per GPU; SGLang's the same). 1 for a runtime
// that splits by layers.
func (d Deployment) kvReplicas() int {
	kv := d.Model.kvHeads()
	if n := d.parallel(); kv > 0 && n > kv {
		return n / kv
	}
	return 1
}

// KVBytesHeldPerToken is the GPU memory one token's KV cache takes over
// all of d's GPUs: the model's KV bytes per token (Model.KVBytesPerToken)
// times the copies a tensor-parallel engine keeps of each KV head when
// the GPUs outnumber them. Zero fields take their defaults first.
func (d Deployment) KVBytesHeldPerToken() float64 {
	d = d.withIdentity()
	d.GPUs = orI(d.GPUs, 1)
	return d.Model.KVBytesPerToken(orF(d.KVBits, 16)) * float64(d.kvReplicas())
}

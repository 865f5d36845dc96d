package simulate

import (
	"slices"
	"strings"
)

// runtimeNames maps every engine name a user may give to its runtime
// class: the class names themselves and the engines each class stands
// for, in the spellings their projects use.
var runtimeNames = map[string]Runtime{
	"auto": RuntimeAuto,

	"vllm": RuntimeVLLM, "sglang": RuntimeVLLM, "tensorrt-llm": RuntimeVLLM, "trt-llm": RuntimeVLLM,
	"trtllm": RuntimeVLLM, "tensorrtllm": RuntimeVLLM, "nim": RuntimeVLLM, "lmdeploy": RuntimeVLLM,
	"gpt-fast": RuntimeVLLM, "mlc": RuntimeVLLM, "mlc-llm": RuntimeVLLM, "exllamav2": RuntimeVLLM,
	"exllama": RuntimeVLLM, "tgi3": RuntimeVLLM, "tgi-3": RuntimeVLLM, "aphrodite": RuntimeVLLM,

	"llama.cpp": RuntimeLlamaCpp, "llamacpp": RuntimeLlamaCpp, "llama-cpp": RuntimeLlamaCpp,
	"ollama": RuntimeLlamaCpp, "lm-studio": RuntimeLlamaCpp, "lmstudio": RuntimeLlamaCpp,
	"llamafile": RuntimeLlamaCpp, "koboldcpp": RuntimeLlamaCpp,
	"ik_llama.cpp": RuntimeLlamaCpp, "ik-llama.cpp": RuntimeLlamaCpp, "ik_llama": RuntimeLlamaCpp,

	"eager": RuntimeEager, "tgi": RuntimeEager, "text-generation-inference": RuntimeEager,
	"transformers": RuntimeEager, "hf": RuntimeEager, "huggingface": RuntimeEager,
}

// RuntimeNames returns every name ParseRuntime accepts, sorted.
func RuntimeNames() []string {
	out := make([]string, 0, len(runtimeNames))
	for n := range runtimeNames {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// ParseRuntime returns the runtime class of an engine name, ignoring case
// and surrounding space: a class name (vllm, llama.cpp, eager, auto) or an
// engine the class stands for (sglang, trtllm, tensorrt-llm, tgi, mlc,
// ollama, …). TGI is the eager class (its 1.x decode loop); "tgi3" names
// TGI 3, which replays CUDA graphs like vLLM. An unknown name yields an
// *UnknownNameError listing every accepted name.
func ParseRuntime(name string) (Runtime, error) {
	key := strings.ToLower(strings.TrimSpace(name))
	if r, ok := runtimeNames[key]; ok {
		return r, nil
	}
	return RuntimeAuto, &UnknownNameError{Kind: "runtime", Name: name, Known: RuntimeNames()}
}

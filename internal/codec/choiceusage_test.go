package codec

import (
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestChoiceUsage: a usage chunk without choices that comes while one
// choice of two has finished starts the adding up (llama.cpp's chat), as
// does a usage on the chunk that finishes the first of two choices
// (llama.cpp's completions); one that comes once every choice has
// (OpenAI, vLLM), for one choice, or after a usage on a chunk that
// finished none (vLLM's running usage), is taken as it is. Each prompt of
// a list counts once, its choices at index prompt × n + j; each usage
// without choices of a request of several prompts is the next prompt's
// (TensorRT-LLM), added up.
func TestChoiceUsage(t *testing.T) {
	none := &openai.ChatCompletionChunk{}
	one := &openai.ChatCompletionChunk{Choices: []openai.ChatCompletionChunkChoice{{}}}
	ends := &openai.ChatCompletionChunk{Choices: []openai.ChatCompletionChunkChoice{{FinishReason: "stop"}}}
	endsAt := func(i int64) *openai.ChatCompletionChunk {
		return &openai.ChatCompletionChunk{Choices: []openai.ChatCompletionChunkChoice{{Index: i, FinishReason: "stop"}}}
	}
	for _, tc := range []struct {
		name     string
		chunks   []*openai.ChatCompletionChunk
		usages   []Usage
		finished []int
		want     int
		prompts  int // 0: 1
		out      Usage
	}{
		{"one choice", []*openai.ChatCompletionChunk{none}, []Usage{{Prompt: 20, Output: 3}}, []int{1}, 1, 0, Usage{Prompt: 20, Output: 3}},
		{"after every choice", []*openai.ChatCompletionChunk{none}, []Usage{{Prompt: 20, Output: 5}}, []int{2}, 2, 0, Usage{Prompt: 20, Output: 5}},
		{"running, on chunks with choices", []*openai.ChatCompletionChunk{one, one, none}, []Usage{{Prompt: 20, Output: 1}, {Prompt: 20, Output: 4}, {Prompt: 20, Output: 5}},
			[]int{0, 1, 2}, 2, 0, Usage{Prompt: 20, Output: 5}},
		{"per choice", []*openai.ChatCompletionChunk{none, none}, []Usage{{Prompt: 20, Cached: 8, Output: 3, Reasoning: 1}, {Prompt: 20, Cached: 0, Output: 2, Reasoning: 2}},
			[]int{1, 2}, 2, 0, Usage{Prompt: 20, Cached: 0, Output: 5, Reasoning: 3}},
		{"per choice, three", []*openai.ChatCompletionChunk{none, none, none}, []Usage{{Prompt: 20, Output: 3}, {Prompt: 20, Output: 2}, {Prompt: 20, Output: 4}},
			[]int{1, 2, 3}, 3, 0, Usage{Prompt: 20, Output: 9}},
		{"per choice, on the finish chunks", []*openai.ChatCompletionChunk{ends, ends}, []Usage{{Prompt: 7, Cached: 1, Output: 2}, {Prompt: 7, Cached: 1, Output: 4}},
			[]int{0, 1}, 2, 0, Usage{Prompt: 7, Cached: 1, Output: 6}},
		{"running, the finish chunks too", []*openai.ChatCompletionChunk{one, ends, ends, none}, []Usage{{Prompt: 5, Output: 1}, {Prompt: 5, Output: 3}, {Prompt: 5, Output: 4}, {Prompt: 5, Output: 7}},
			[]int{0, 0, 1, 2}, 2, 0, Usage{Prompt: 5, Output: 7}},
		{"the whole on the last finish chunk", []*openai.ChatCompletionChunk{ends}, []Usage{{Prompt: 5, Output: 7}}, []int{1}, 2, 0, Usage{Prompt: 5, Output: 7}},
		{"two prompts", []*openai.ChatCompletionChunk{endsAt(1), endsAt(0)}, []Usage{{Prompt: 5, Output: 2}, {Prompt: 7, Cached: 1, Output: 4}},
			[]int{0, 1}, 2, 2, Usage{Prompt: 12, Cached: 1, Output: 6}},
		{"two prompts, two choices each", []*openai.ChatCompletionChunk{endsAt(3), endsAt(0), endsAt(2), endsAt(1)},
			[]Usage{{Prompt: 5, Output: 2}, {Prompt: 7, Cached: 4, Output: 4}, {Prompt: 5, Output: 1}, {Prompt: 7, Cached: 6, Output: 3}},
			[]int{0, 1, 2, 3}, 4, 2, Usage{Prompt: 12, Cached: 4, Output: 10}},
		{"per prompt, after every choice (trtllm-serve)", []*openai.ChatCompletionChunk{none, none}, []Usage{{Prompt: 3, Cached: 2, Output: 1}, {Prompt: 4, Cached: 1, Output: 1}},
			[]int{2, 2}, 2, 2, Usage{Prompt: 7, Cached: 3, Output: 2}},
		{"per prompt, the second after its finish", []*openai.ChatCompletionChunk{none, none}, []Usage{{Prompt: 4, Output: 1}, {Prompt: 3, Output: 2}},
			[]int{1, 2}, 2, 2, Usage{Prompt: 7, Output: 3}},
		{"one usage for every prompt (vLLM)", []*openai.ChatCompletionChunk{none}, []Usage{{Prompt: 7, Output: 4}}, []int{2}, 2, 2, Usage{Prompt: 7, Output: 4}},
		{"an index past the last prompt", []*openai.ChatCompletionChunk{endsAt(0), endsAt(9)}, []Usage{{Prompt: 7, Output: 4}, {Prompt: 5, Output: 2}},
			[]int{0, 1}, 2, 2, Usage{Prompt: 12, Output: 6}},
	} {
		var s ChoiceUsage
		var got Usage
		for i, c := range tc.chunks {
			got = s.Add(c, tc.usages[i], tc.finished[i], tc.want, max(tc.prompts, 1))
		}
		if got != tc.out {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.out)
		}
	}
}

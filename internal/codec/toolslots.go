package codec

import (
	"slices"

	"github.com/openai/openai-go/v3"
)

// ToolSlots keeps, per choice, the tool calls openai-go's accumulator
// holds, so that each tool-call delta goes in as the server meant it. The accumulator appends every delta's name and arguments to
// the call at the delta's index, which two documented server habits
// break:
//   - Ollama gives every tool call of a turn index 0, and Gemini none
//     (which reads as 0), each whole and with an id of its own
//     (ollama/ollama#15457, THU-MAIC/OpenMAIC#1556), as vLLM and SGLang
//     start each parallel call at index 0 with an id of its own
//     (InternLM/lmdeploy#3412): appended, two calls become one named
//     write_filewrite_file, its arguments two JSON objects.
//   - MiniMax on NVIDIA NIM, and OpenAI's GPT-5 models, send a call's
//     whole name again with each delta (NousResearch/hermes-agent#8259,
//     open-webui/open-webui#22177): appended, read_fileread_file.
//
// So a delta whose id differs from the id of the call at its index starts
// a new call after the last, where the later deltas of that index go
// too; and a name equal to its call's is not appended again. Every other
// delta passes as it is. The zero value is ready to use.
type ToolSlots map[int64]*choiceTools

// choiceTools is one choice's calls.
type choiceTools struct {
	calls []toolSlot      // by the accumulator's index
	moved map[int64]int64 // a server index whose deltas go to another call
}

// toolSlot is what the accumulator holds of one call.
type toolSlot struct{ id, name string }

// Rewrite returns c, or a copy of it whose tool-call deltas are rewritten
// as ToolSlots says, and records them. c, the caller's chunk, is never
// changed.
func (t *ToolSlots) Rewrite(c *openai.ChatCompletionChunk) *openai.ChatCompletionChunk {
	out := c
	for i := range c.Choices {
		deltas := c.Choices[i].Delta.ToolCalls
		if len(deltas) == 0 {
			continue
		}
		if *t == nil {
			*t = ToolSlots{}
		}
		ct := (*t)[c.Choices[i].Index]
		if ct == nil {
			ct = &choiceTools{}
			(*t)[c.Choices[i].Index] = ct
		}
		for j := range deltas {
			d, changed := ct.place(deltas[j])
			if !changed {
				continue
			}
			if out == c {
				cc := *c
				cc.Choices = slices.Clone(c.Choices)
				out = &cc
			}
			if &out.Choices[i].Delta.ToolCalls[0] == &deltas[0] {
				out.Choices[i].Delta.ToolCalls = slices.Clone(deltas)
			}
			out.Choices[i].Delta.ToolCalls[j] = d
		}
	}
	return out
}

// place returns delta d as the accumulator must get it, whether that
// differs from d, and records it.
func (ct *choiceTools) place(d openai.ChatCompletionChunkChoiceDeltaToolCall) (openai.ChatCompletionChunkChoiceDeltaToolCall, bool) {
	in := d
	if d.Index == -1 {
		d.Index = 0 // as openai-go reads a lone call's index
	}
	if k, ok := ct.moved[in.Index]; ok {
		d.Index = k
	}
	if d.Index < 0 || d.Index > int64(len(ct.calls))+MaxToolCalls {
		return in, false // the accumulator judges an index out of bounds
	}
	if d.Index < int64(len(ct.calls)) {
		s := ct.calls[d.Index]
		if d.ID != "" && s.id != "" && d.ID != s.id {
			d.Index = int64(len(ct.calls))
			if ct.moved == nil {
				ct.moved = map[int64]int64{}
			}
			ct.moved[in.Index] = d.Index
		} else if d.Function.Name != "" && d.Function.Name == s.name {
			d.Function.Name = ""
		}
	}
	for int64(len(ct.calls)) <= d.Index {
		ct.calls = append(ct.calls, toolSlot{})
	}
	s := &ct.calls[d.Index]
	if d.ID != "" {
		s.id = d.ID
	}
	s.name += d.Function.Name
	return d, d.Index != in.Index || d.Function.Name != in.Function.Name
}

package codec

import (
	"slices"

	"github.com/openai/openai-go/v3"
)

// ToolSlots keeps, per choice, the tool calls openai-go's accumulator
// holds, so that each tool-call delta goes in as the server meant it.
// The accumulator appends every delta's name and arguments to the call at
// the delta's index, which documented server habits break:
//
//   - Ollama gives every tool call of a turn index 0, and Gemini none
//     (which reads as 0), each whole and with an id of its own
//     (ollama/ollama#15457, THU-MAIC/OpenMAIC#1556), as vLLM and SGLang
//     start each parallel call at index 0 with an id of its own
//     (InternLM/lmdeploy#3412): appended, two calls become one named
//     write_filewrite_file, its arguments two JSON objects.
//
//   - MiniMax on NVIDIA NIM, and OpenAI's GPT-5 models, send a call's
//     whole name again with each delta (NousResearch/hermes-agent#8259,
//     open-webui/open-webui#22177): appended, read_fileread_file.
//
//   - Bedrock's Claude, relayed (LiteLLM), numbers a turn's first call 1
//     when text came before it (BerriAI/litellm#5025); LibreChat's agents
//     API, until PR #14416, sent a call's id and name under one index and
//     its arguments under another (danny-avila/LibreChat#13987): the
//     accumulator holds an empty call at each index never used, or a
//     call split in two, id and arguments apart.
//
// So calls take the accumulator's indexes in the order they start,
// whatever index the server gives them: a server index seen for the
// first time starts the next call, unless its delta has neither id nor
// name, for a call cannot start without them: it carries on the last
// call, as does such a delta without an index (servers that give a
// call's index with its first delta only; openai-go reads a missing
// index as 0, and the arguments of a second call went to the first). A delta that names a function under an id other than its call's
// starts a new call, after the last; later deltas of its index go there
// too, and a delta with an id a call already has goes to that call
// (SGLang repeats each call's id on its every delta), unless it names a
// function at an index never seen: LocalAI 2 and 3 give every call of a
// turn the request's id (sigoden/aichat#580), so that only their indexes
// tell parallel calls apart. A delta whose id
// changes without a name stays in its call (Poolside changes the id
// after the first delta: poolsideai/pool#9), and a name equal to its
// call's is not appended again (a name that truly arrives in fragments,
// one of them equal to the name so far, would lose that fragment: no
// server is known to split names). Every other delta passes as it is. A
// choice holds at most MaxToolCalls calls, as a delta's index does. The
// zero value is ready to use.
type ToolSlots map[int64]*choiceTools

// choiceTools is one choice's calls.
type choiceTools struct {
	calls []toolSlot       // by the accumulator's index
	slot  map[int64]int64  // the call each server index's deltas go to
	byID  map[string]int64 // the call of each id, its first
}

// toolSlot is what the accumulator holds of one call: its first id, and
// its name.
type toolSlot struct{ id, name string }

// Rewrite returns c, or a copy of it whose tool-call deltas are rewritten
// as ToolSlots says, and records them. c, the caller's chunk, is never
// changed. It reports false, and records nothing more, for a chunk that
// would start a call past MaxToolCalls.
func (t *ToolSlots) Rewrite(c *openai.ChatCompletionChunk) (*openai.ChatCompletionChunk, bool) {
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
			d, ok := ct.place(deltas[j])
			if !ok {
				return nil, false
			}
			if d.Index == deltas[j].Index && d.Function.Name == deltas[j].Function.Name {
				continue // as it came
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
	return out, true
}

// place returns delta d as the accumulator must get it and records it;
// false when it would start a call past MaxToolCalls.
func (ct *choiceTools) place(d openai.ChatCompletionChunkChoiceDeltaToolCall) (openai.ChatCompletionChunkChoiceDeltaToolCall, bool) {
	if d.Index == -1 {
		d.Index = 0 // as openai-go reads a lone call's index
	}
	if d.RawJSON() != "" && !d.JSON.Index.Valid() && d.ID == "" && d.Function.Name == "" && len(ct.calls) > 0 {
		// Sent without an index, an id or a name, a delta carries on
		// the call the stream is in: the last one started.
		d.Index = int64(len(ct.calls)) - 1
		return d, true
	}
	in := d.Index
	if ct.slot == nil {
		ct.slot = map[int64]int64{}
	}
	k, seen := ct.slot[in]
	byID, known := ct.byID[d.ID]
	switch {
	case known && d.ID != "" && (seen || d.Function.Name == ""):
		d.Index = byID
	case !seen && d.ID == "" && d.Function.Name == "" && len(ct.calls) > 0:
		// An index never opened carries on the last call; it is not
		// recorded, so that indexes without a call take no memory.
		d.Index = int64(len(ct.calls)) - 1
	case !seen:
		d.Index = int64(len(ct.calls))
		ct.slot[in] = d.Index
	default:
		d.Index = k
		if s := ct.calls[k]; d.ID != "" && s.id != "" && d.ID != s.id && d.Function.Name != "" {
			d.Index = int64(len(ct.calls))
			ct.slot[in] = d.Index
		}
	}
	if d.Index < 0 || d.Index >= MaxToolCalls {
		return d, false
	}
	for int64(len(ct.calls)) <= d.Index {
		ct.calls = append(ct.calls, toolSlot{})
	}
	s := &ct.calls[d.Index]
	if d.Function.Name != "" && d.Function.Name == s.name {
		d.Function.Name = ""
	}
	if d.ID != "" && s.id == "" {
		s.id = d.ID
		if ct.byID == nil {
			ct.byID = map[string]int64{}
		}
		ct.byID[d.ID] = d.Index
	}
	s.name += d.Function.Name
	return d, true
}

// NextRound makes every later tool-call delta start a call of its own,
// after the calls so far, whatever its index or id: the server ran the
// calls so far itself and runs the model again in the same stream (see
// serverToolResult). LocalAI numbers each round's calls from index 0
// under ids made of the request's id and that index
// (core/http/endpoints/openai/chat.go, ChatEndpoint's MCP stream loop;
// chat_emit.go, buildDeferredToolCallChunks), so that a second round's
// call would have gone to the first's, its arguments appended.
func (t ToolSlots) NextRound() {
	for _, ct := range t {
		ct.slot, ct.byID = nil, nil
	}
}

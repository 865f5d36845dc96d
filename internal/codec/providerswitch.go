package codec

import "github.com/openai/openai-go/v3"

// An answer started over by another provider.
//
// gpt4free's OpenAI-compatible API, asked for a model with no provider
// named, serves it through its AnyProvider: the providers of the model
// tried in turn by RotatedProvider, which catches a provider's failure
// and goes on to the next one whether or not the failed one had yielded
// text (xtekky/gpt4free g4f/providers/retry_provider.py,
// RotatedProvider.create_async_generator; its IterListProvider raises
// once text came). The next provider's answer follows in the same
// stream from its beginning, under the same id, and ends with "stop"
// and [DONE]: the caller's text is the cut answer and a whole other one
// glued together. Only the chunks' "provider" member, which
// g4f/client/__init__.py (async_iter_response) sets on every chunk from
// the provider last tried, tells the second answer from the first.
//
// A switch after reasoning alone is no such restart. gpt4free's
// AgentTools (g4f/Provider/AgentTools.py, AgentTools.create_async_generator)
// runs an agent loop in one stream: each step asks its inner providers,
// rotated from one step to the next, passes their ProviderInfo through,
// and ends with the step's tool calls sent as reasoning, a fenced block
// (_format_tool_calls_fence); the next step's text, under another
// provider, goes on with the same answer. And a provider that failed while
// it reasoned left no text: the text that follows is the next one's, whole.

// providerSwitched is the Detail of the error of a chunk whose provider
// is not the one that wrote the answer so far.
const providerSwitched = "answer started over by another provider"

// providerSwitch follows the "provider" member gpt4free puts on every
// chunk. Only the first chunk is looked at for it: a stream of another
// server pays one test a chunk. The zero value has looked at no chunk.
type providerSwitch struct {
	looked   bool   // a chunk was looked at
	provider string // the first chunk's provider, as sent; "" if none
	text     bool   // the last chunk that carried output carried more than reasoning
}

// check returns an error for ev, a chunk that carries output from a
// provider other than the one whose chunks carried output before it, the
// last of them more than reasoning (see reasoningOnly): the
// text so far is kept, cut (a Router carries it on), and the other
// provider's answer, which starts over, is not read. A switch before any
// output loses nothing and is read as it came; an event that names no
// provider (a relay's own, as claude-code-router's `{}` before
// OpenRouter's error) or carries no output is read as it came.
func (p *providerSwitch) check(ev *Event) error {
	if !p.looked {
		p.looked = true
		p.provider = providerOf(ev.Chunk)
	}
	if p.provider == "" {
		return nil
	}
	q := providerOf(ev.Chunk)
	if q == "" || ev.Outputs == 0 && !ev.ToolCall {
		return nil
	}
	if q != p.provider && p.text {
		return &Error{Truncated: true, Detail: providerSwitched}
	}
	p.provider, p.text = q, !reasoningOnly(ev)
	return nil
}

// reasoningOnly reports whether ev, a chunk that carries output, carries
// reasoning and nothing else: no text, tool call, refusal or audio.
func reasoningOnly(ev *Event) bool {
	if !ev.Reasoning || ev.ToolCall || ev.Refusal || ev.Audio {
		return false
	}
	for i := range ev.Chunk.Choices {
		if ev.Chunk.Choices[i].Delta.Content != "" {
			return false
		}
	}
	return true
}

// providerOf returns c's "provider" member as sent, or "".
func providerOf(c *openai.ChatCompletionChunk) string {
	return c.JSON.ExtraFields["provider"].Raw()
}

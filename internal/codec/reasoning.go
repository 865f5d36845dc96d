package codec

import (
	"encoding/json"
	"strings"

	"github.com/openai/openai-go/v3"
)

// reasoningContent is the message field in which DeepSeek, Moonshot and
// llama.cpp stream a thinking model's reasoning, and in which DeepSeek's
// thinking mode wants it back on an assistant message that made tool
// calls: without it, the next request is refused, 400 "Missing
// `reasoning_content` field in the assistant message"
// (api-docs.deepseek.com/guides/thinking_mode#tool-calls).
const reasoningContent = "reasoning_content"

// reasoningName is the message field in which vLLM streams a thinking
// model's reasoning since it renamed reasoning_content (vllm-project/vllm
// #27752; the old name removed by #33402, v0.16), and the only one its
// chat input reads back: a model that thinks between its tool calls
// (MiniMax-M2, Kimi K2.5, GLM) loses its earlier reasoning without it.
// Groq, Ollama and OpenRouter stream it too; Groq refuses it back for
// some models ("property 'reasoning' is unsupported"), and the client
// then learns to send that server none (see wire.RefusedFields).
const reasoningName = "reasoning"

// Reasoning accumulates the reasoning_content of a streamed chat answer's
// first choice, and its content, which names a turn without tool calls
// (see Content), up to maxDetailsBytes each. The zero value is ready to
// use.
type Reasoning struct {
	text, content strings.Builder
	over          bool
	field         string // the field the reasoning came in
	call          firstCall
}

// Add adds the reasoning_content and content pieces of ev's first choice,
// if any.
func (r *Reasoning) Add(ev *Event) {
	c, ok := ev.Orig.(*openai.ChatCompletionChunk)
	if !ok || r.over {
		return
	}
	for i := range c.Choices {
		if c.Choices[i].Index != 0 {
			continue
		}
		d := &c.Choices[i].Delta
		s := ReasoningPiece(d)
		if r.field == "" && s != "" {
			r.field = reasoningFieldOf(d)
		}
		if r.text.Len()+len(s) > maxDetailsBytes || r.content.Len()+len(d.Content) > maxDetailsBytes {
			r.over = true
			r.text.Reset()
			r.content.Reset()
			return
		}
		r.text.WriteString(s)
		r.content.WriteString(d.Content)
		for j := range d.ToolCalls {
			r.call.add(&d.ToolCalls[j])
		}
	}
}

// FirstCallArgs returns the arguments of the first tool call added (the
// first call delta's index and id), and whether they are known: false
// when no call came, or its arguments passed maxDetailsBytes.
func (r *Reasoning) FirstCallArgs() (string, bool) {
	return r.call.args.String(), r.call.seen && !r.call.over
}

// Content returns the content added, "" past maxDetailsBytes.
func (r *Reasoning) Content() string { return r.content.String() }

// Text returns the accumulated reasoning, "" past maxDetailsBytes.
func (r *Reasoning) Text() string { return r.text.String() }

// Field returns the field the reasoning came in, reasoning_content or
// reasoning, as the server streamed it: the one to give it back in;
// reasoning_content when none came.
func (r *Reasoning) Field() string {
	if r.field == "" {
		return reasoningContent
	}
	return r.field
}

// ReasoningPiece returns the reasoning piece of a delta, its
// reasoning_content or else its reasoning (a server that streams both,
// vLLM between the two names, sends the same text in each); "" when it
// has none.
func ReasoningPiece(d *openai.ChatCompletionChunkChoiceDelta) string {
	f, ok := d.JSON.ExtraFields[reasoningFieldOf(d)]
	if !ok {
		return ""
	}
	return stringOf(json.RawMessage(f.Raw()))
}

// reasoningFieldOf returns the field a delta's reasoning piece is in:
// reasoning_content when it holds one, else reasoning. A reasoning_content
// that is null or "" holds none: OVHcloud's AI Endpoints, moving from
// reasoning_content to reasoning, streamed the text in reasoning with
// reasoning_content null beside it on every delta (BerriAI/litellm
// litellm/llms/ovhcloud/chat/transformation.py), and the reasoning kept
// to give back on the next turn was that null's: none. The check is two
// comparisons of the raw value the decoder already holds.
func reasoningFieldOf(d *openai.ChatCompletionChunkChoiceDelta) string {
	if f, ok := d.JSON.ExtraFields[reasoningContent]; ok {
		if raw := f.Raw(); raw != "null" && raw != `""` {
			return reasoningContent
		}
		if _, ok := d.JSON.ExtraFields[reasoningName]; !ok {
			return reasoningContent
		}
	}
	return reasoningName
}

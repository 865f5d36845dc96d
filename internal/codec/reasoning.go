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
// (api-docs.deepseek.com/guides/thinking_mode#tool-calls). Given back
// only under this name: servers that stream a "reasoning" field (Groq,
// Ollama, OpenRouter) neither need it back nor all accept it.
const reasoningContent = "reasoning_content"

// Reasoning accumulates the reasoning_content of a streamed chat answer's
// first choice, and its content, which names a turn without tool calls
// (see Content), up to maxDetailsBytes each. The zero value is ready to
// use.
type Reasoning struct {
	text, content strings.Builder
	over          bool
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
		if r.text.Len()+len(s) > maxDetailsBytes || r.content.Len()+len(d.Content) > maxDetailsBytes {
			r.over = true
			r.text.Reset()
			r.content.Reset()
			return
		}
		r.text.WriteString(s)
		r.content.WriteString(d.Content)
	}
}

// Content returns the content added, "" past maxDetailsBytes.
func (r *Reasoning) Content() string { return r.content.String() }

// Text returns the accumulated reasoning, "" past maxDetailsBytes.
func (r *Reasoning) Text() string { return r.text.String() }

// ReasoningPiece returns the reasoning_content piece of a delta, "" when
// it has none.
func ReasoningPiece(d *openai.ChatCompletionChunkChoiceDelta) string {
	f, ok := d.JSON.ExtraFields[reasoningContent]
	if !ok {
		return ""
	}
	return stringOf(json.RawMessage(f.Raw()))
}

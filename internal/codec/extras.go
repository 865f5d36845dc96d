package codec

import (
	"encoding/json"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace/internal/wire"
)

// CallExtras calls keep with the id, the field and its JSON of each tool
// call of ev, a chat event streamed or a whole chat completion, that
// carries an extra_content; and, for a whole completion, with the first
// call's id and the message's reasoning_details, if it has both (a
// stream's come in pieces: see Details). A call whose extra content comes
// in a later delta than its id is not seen; Gemini sends each call whole
// in one delta.
func CallExtras(ev *Event, keep func(id, field, raw string)) {
	switch o := ev.Orig.(type) {
	case *openai.ChatCompletionChunk:
		for i := range o.Choices {
			for _, tc := range o.Choices[i].Delta.ToolCalls {
				if f, ok := tc.JSON.ExtraFields[wire.ExtraContent]; ok && tc.ID != "" {
					keep(tc.ID, wire.ExtraContent, f.Raw())
				}
			}
		}
	case *openai.ChatCompletion:
		for i := range o.Choices {
			m := &o.Choices[i].Message
			for _, tc := range m.ToolCalls {
				var v struct {
					Extra json.RawMessage `json:"extra_content"`
				}
				if tc.ID != "" && json.Unmarshal([]byte(tc.RawJSON()), &v) == nil && len(v.Extra) > 0 {
					keep(tc.ID, wire.ExtraContent, string(v.Extra))
				}
			}
			if f, ok := m.JSON.ExtraFields[wire.ReasoningDetails]; ok && len(m.ToolCalls) > 0 && m.ToolCalls[0].ID != "" {
				keep(m.ToolCalls[0].ID, wire.ReasoningDetails, f.Raw())
			}
		}
	}
}

// FirstCallID returns the id of the first tool call of ev's first choice
// that has one, or "".
func FirstCallID(ev *Event) string {
	if c, ok := ev.Orig.(*openai.ChatCompletionChunk); ok && len(c.Choices) > 0 {
		for _, tc := range c.Choices[0].Delta.ToolCalls {
			if tc.ID != "" {
				return tc.ID
			}
		}
	}
	return ""
}

package codec

import (
	"encoding/json"

	"github.com/openai/openai-go/v3"
)

// CallExtras calls extra with the id and the extra_content JSON of each
// tool call of ev, a chat event streamed or a whole chat completion, that
// carries one; and, for a whole completion, details with the first call's
// id and the message's reasoning_details, if it has both (a stream's come
// in pieces: see Details). A call whose extra content comes in a later
// delta than its id is not seen; Gemini sends each call whole in one
// delta.
func CallExtras(ev *Event, extra, details func(id, raw string)) {
	switch o := ev.Orig.(type) {
	case *openai.ChatCompletionChunk:
		for i := range o.Choices {
			for _, tc := range o.Choices[i].Delta.ToolCalls {
				if f, ok := tc.JSON.ExtraFields[extraContent]; ok && tc.ID != "" {
					extra(tc.ID, f.Raw())
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
					extra(tc.ID, string(v.Extra))
				}
			}
			if f, ok := m.JSON.ExtraFields[reasoningDetails]; ok && len(m.ToolCalls) > 0 && m.ToolCalls[0].ID != "" {
				details(m.ToolCalls[0].ID, f.Raw())
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

package codec

import (
	"encoding/json"

	"github.com/openai/openai-go/v3"
)

// CallExtras calls keep with the id and the extra_content JSON of each
// tool call of ev, a chat event streamed or a whole chat completion, that
// carries both: what Gemini 3 wants back on the next request (see
// wire.CallExtras). A call whose extra content comes in a later delta
// than its id is not seen; Gemini sends each call whole in one delta.
func CallExtras(ev *Event, keep func(id, raw string)) {
	switch o := ev.Orig.(type) {
	case *openai.ChatCompletionChunk:
		for i := range o.Choices {
			for _, tc := range o.Choices[i].Delta.ToolCalls {
				if f, ok := tc.JSON.ExtraFields["extra_content"]; ok && tc.ID != "" {
					keep(tc.ID, f.Raw())
				}
			}
		}
	case *openai.ChatCompletion:
		for i := range o.Choices {
			for _, tc := range o.Choices[i].Message.ToolCalls {
				var v struct {
					Extra json.RawMessage `json:"extra_content"`
				}
				if tc.ID != "" && json.Unmarshal([]byte(tc.RawJSON()), &v) == nil && len(v.Extra) > 0 {
					keep(tc.ID, string(v.Extra))
				}
			}
		}
	}
}

package codec

import (
	"encoding/json"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
)

// CallExtras calls extra with the id and the extra_content JSON of each
// tool call of ev, a chat event streamed or a whole chat completion, that
// carries one; and, for a whole completion, message with the message's
// first call id ("" when it made none) and that call's arguments, its
// content and each of its
// reasoning_details and reasoning_content (see MessageFields) that it has
// (a stream's come in pieces: see Details and Reasoning), and the signed
// thinking blocks of its thinking_blocks or content_blocks, as
// SignedBlocksOf gives them. A call whose
// extra content comes in a later delta than its id is not seen; Gemini
// sends each call whole in one delta.
func CallExtras(ev *Event, extra func(id, raw string), message func(call, args, content, field, raw string)) {
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
			call, args := "", ""
			if len(m.ToolCalls) > 0 {
				call, args = m.ToolCalls[0].ID, m.ToolCalls[0].Function.Arguments
			}
			for _, field := range MessageFields {
				if f, ok := m.JSON.ExtraFields[field]; ok {
					message(call, args, m.Content, field, f.Raw())
				}
			}
			for _, field := range [...]string{thinkingBlocks, contentBlocks} {
				if f, ok := m.JSON.ExtraFields[field]; ok {
					message(call, args, m.Content, field, SignedBlocksOf(f.Raw()))
				}
			}
		}
	}
}

// MessageFields are the fields of an assistant message that made tool
// calls that a server may want back on it: OpenRouter's
// reasoning_details, DeepSeek's reasoning_content, vLLM's reasoning.
var MessageFields = [...]string{reasoningDetails, reasoningContent, reasoningName}

// Whole reports whether ev is a whole response (a non-streaming call's).
func Whole(ev *Event) bool {
	switch ev.Orig.(type) {
	case *openai.ChatCompletion, *openai.Completion, *responses.Response:
		return true
	}
	return false
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

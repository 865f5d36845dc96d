package codec

import (
	"encoding/json"

	"github.com/openai/openai-go/v3/responses"
	"github.com/tidwall/sjson"
)

// reasoningAsText turns the text events of a reasoning item into the
// reasoning events they stand for. LocalAI's /v1/responses gives a
// model's thinking an output item of type "reasoning" whose content part
// is output_text, and streams it as response.output_text.delta under that
// item's id, closed by a response.output_text.done
// (mudler/LocalAI core/http/endpoints/openresponses/responses.go,
// handleOpenResponsesStream): read as they come, the thinking would open
// the answer's text. The event becomes response.reasoning_text.delta (or
// .done), as the API reference names a reasoning item's text, in its
// JSON too (decoded again: these events alone pay for it), and its text
// leaves the chat view's content; it stays output, for TTFT.
//
// Only events naming the open reasoning item (s.thinking, set by its
// output_item.added) are touched: one comparison per event while such an
// item is open, none otherwise.
func (s *ResponseStream) reasoningAsText(out *Event, ev *responses.ResponseStreamEventUnion) {
	switch ev.Type {
	case RespTextDelta:
		ev.Type = respReasoningDelta
	case respTextDone:
		ev.Type = respReasoningDone
	default:
		return
	}
	// The event as sent names the type too: its RawJSON, what AsAny's
	// event reads, and what a Router's continuation decodes again.
	if raw, err := sjson.Set(ev.RawJSON(), "type", ev.Type); err == nil {
		var u responses.ResponseStreamEventUnion
		if json.Unmarshal([]byte(raw), &u) == nil {
			*ev = u
		}
	}
	if out.Chunk != nil && len(out.Chunk.Choices) > 0 {
		out.Chunk.Choices[0].Delta.Content = ""
	}
}

// noteReasoningItem follows the reasoning item a Responses stream has open
// (see reasoningAsText): the id of the last one added, until it is done.
func (s *ResponseStream) noteReasoningItem(ev *responses.ResponseStreamEventUnion) {
	switch {
	case ev.Type == respItemAdded && ev.Item.Type == "reasoning":
		s.thinking = ev.Item.ID
	case ev.Type == respItemDone && ev.Item.ID == s.thinking:
		s.thinking = ""
	}
}

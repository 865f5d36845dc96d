package codec

import (
	"encoding/json"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/respjson"
)

// A whole chat completion in place of a stream.
//
// TabbyAPI with `disable_request_streaming` in its config
// (theroyallab/tabbyAPI endpoints/OAI/router.py, chat_completion_request)
// answers a streamed request with the whole chat.completion, labelled
// application/json. Its message is no delta: read as a chunk it held
// nothing, and the answer was lost behind a wrong content type.

// WholeChat returns the event of data, the body of r that is no event
// stream, when r is a chat request and data a whole chat completion: the
// object "chat.completion" whose choices all hold a message and finished.
// The event is the chunk a non-streaming call of r would give (see
// chat.Fetch), with each message's reasoning in its delta, as a stream
// shows it. ok is false for anything else.
func WholeChat(r Request, data []byte) (ev Event, ok bool) {
	c, isChat := r.(chat)
	if !isChat {
		return ev, false
	}
	res := new(openai.ChatCompletion)
	if json.Unmarshal(data, res) != nil || res.JSON.Object.Raw() != `"chat.completion"` || len(res.Choices) == 0 {
		return ev, false
	}
	for i := range res.Choices {
		ch := &res.Choices[i]
		if !ch.JSON.Message.Valid() || finishReason(ch.FinishReason, ch.JSON.ExtraFields["native_finish_reason"]) == "" {
			return ev, false
		}
	}
	ev, err := c.wholeEvent(res)
	if err != nil {
		return Event{}, false
	}
	for i := range ev.Chunk.Choices {
		if i >= len(res.Choices) {
			break
		}
		d := &ev.Chunk.Choices[i].Delta
		for _, field := range MessageFields {
			f, ok := res.Choices[i].Message.JSON.ExtraFields[field]
			if !ok || f.Raw() == "null" {
				continue
			}
			if d.JSON.ExtraFields == nil {
				d.JSON.ExtraFields = map[string]respjson.Field{}
			}
			d.JSON.ExtraFields[field] = f
		}
	}
	return chunkEvent(ev.Chunk, ev.Chunk), true
}

package codec

import (
	"strings"

	"github.com/openai/openai-go/v3"
)

// Kong AI Gateway's ai-proxy in front of Anthropic, whose chat stream
// never finishes.
//
// Kong's anthropic driver (Kong/kong kong/llm/drivers/anthropic.lua,
// handle_stream_event, through 3.10 and on its main branch in July 2026)
// writes message_start as a role chunk and each content block's start and
// delta as a chunk of text, all under Anthropic's message id ("msg_…")
// and the model's configured name, with no created member; message_delta,
// which holds the stop reason and the output tokens, it keeps for its
// analytics and writes no chunk for; message_stop becomes [DONE]. A
// mid-stream error event matches no branch and is dropped, and the body
// ends without [DONE]. So a whole answer ends with [DONE] and no finish
// reason, a cut one without [DONE]. Read as any other stream, every whole
// answer was a cut one (KindTruncated "no finish_reason"), and a Router
// carried on an answer that was whole.

// KongClaudeStream decodes a chat stream as SparkStream does, and follows
// what it needs to tell, at [DONE], an answer of Anthropic relayed by
// Kong's ai-proxy (see AtDone): whether every chunk so far is in that
// shape (see kongClaudeChunk), whether a choice finished, and whether the
// answer had any output.
type KongClaudeStream struct {
	SparkStream
	kong shapeWatch // every chunk so far is in the shape of Kong's Anthropic chunks
}

// Decode decodes the next event of the stream.
func (s *KongClaudeStream) Decode(data []byte) (Event, error) {
	ev, err := s.SparkStream.Decode(data)
	if err == nil {
		s.kong.watch(ev, kongClaudeChunk)
	}
	return ev, err
}

// AtDone returns the finish Kong leaves out: at [DONE], an event whose one
// choice finished "stop", when every chunk was in the shape of Kong's
// Anthropic chunks, no choice finished and some output came; else what
// SparkStream returns. The stop reason is lost with message_delta: an
// answer cut by max_tokens reads "stop" in Timing, and Accumulated()
// tells "length" from the count of the deltas, as it does for a relay
// that says "stop" for it.
func (s *KongClaudeStream) AtDone() (ev Event, ok bool) {
	if !s.kong.due() {
		return s.SparkStream.AtDone()
	}
	return s.kong.finish(&s.chat, s.kong.model)
}

// kongClaudeChunk reports whether c is in the shape of Kong's chunks made
// of Anthropic's events: an id of Anthropic's messages ("msg_…"), the
// object "chat.completion.chunk", no created member, no usage, and one
// choice, the first.
func kongClaudeChunk(c *openai.ChatCompletionChunk) bool {
	return strings.HasPrefix(c.ID, "msg_") && c.Object == "chat.completion.chunk" && c.JSON.Created.Raw() == "" &&
		c.JSON.Usage.Raw() == "" && len(c.Choices) == 1
}

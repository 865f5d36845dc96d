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

// kongClaudeChunk reports whether c is in the shape of Kong's chunks made
// of Anthropic's events: an id of Anthropic's messages ("msg_…"), the
// object "chat.completion.chunk", no created member, no usage, and one
// choice, the first.
func kongClaudeChunk(c *openai.ChatCompletionChunk) bool {
	return strings.HasPrefix(c.ID, "msg_") && c.Object == "chat.completion.chunk" && c.JSON.Created.Raw() == "" &&
		c.JSON.Usage.Raw() == "" && len(c.Choices) == 1
}

package codec

import (
	"strings"

	"github.com/openai/openai-go/v3"
)

// Lemonade's omni collections write a failure as the answer's text.
//
// Lemonade Server streams a chat of an omni collection (recipe
// collection.omni) from its own tool loop (lemonade-sdk/lemonade,
// src/cpp/server/collection_orchestrator.cpp,
// CollectionOrchestrator::chat_completion_stream): a role chunk, then
// the loop's artifacts and answer as content. When the loop fails (its
// chat component's error, a tool model that would not load), send_error
// writes "\n\nError: " and the message as content, a chunk of delta {}
// finished "stop" and [DONE], as for a whole answer. Its chunk ids are
// new_completion_id's, "chatcmpl-omni-<time>-<n>", which no model's
// stream through Lemonade has.

// omniErrorText is the text that begins the failure's chunk; omniID, the
// ids of an omni collection's chunks.
const (
	omniErrorText = "\n\nError: "
	omniID        = "chatcmpl-omni-"
)

// omniError returns the error of chunk c when it is an omni collection's
// failure: one choice, not finished, whose delta is content alone that
// begins "\n\nError: ", in a chunk whose id is an omni collection's.
// Its message is the rest of the content; nil for any other chunk.
func omniError(c *openai.ChatCompletionChunk) *ServerError {
	ch, msg, ok := contentAfter(c, omniErrorText)
	if !ok || !strings.HasPrefix(c.ID, omniID) || ch.FinishReason != "" {
		return nil
	}
	return &ServerError{Message: msg, Type: "server_error"}
}

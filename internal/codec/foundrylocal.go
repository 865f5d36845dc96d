package codec

import (
	"github.com/openai/openai-go/v3"
)

// Foundry Local before 1.0.0, whose chat stream never finishes.
//
// Foundry Local 0.8.101 to 0.8.119 (microsoft/foundry-local#299, #399,
// #423; fixed in 1.0.0, May 2026, its CLI later) streams chunks that have
// no finish_reason key at all: each is its C# response object serialized
// whole, the delta repeated as a message beside it (both with the role
// and tool_calls []), and the object's own members beside OpenAI's
// (CreatedAt, IsDelta, Successful, HttpStatusCode). A whole answer ends
// with [DONE] after its last token. Read as any other stream, every whole
// answer was a cut one (KindTruncated "no finish_reason"), and a Router
// carried on an answer that was whole.

// foundryLocalChunk reports whether c is in the shape of Foundry Local's
// chunks before 1.0.0: the members IsDelta, Successful and
// HttpStatusCode beside OpenAI's, and one choice, the first, with a
// message beside its delta and no finish_reason key.
func foundryLocalChunk(c *openai.ChatCompletionChunk) bool {
	if len(c.Choices) != 1 || len(c.JSON.ExtraFields) < 3 {
		return false
	}
	for _, k := range [...]string{"IsDelta", "Successful", "HttpStatusCode"} {
		if _, ok := c.JSON.ExtraFields[k]; !ok {
			return false
		}
	}
	ch := &c.Choices[0]
	_, message := ch.JSON.ExtraFields["message"]
	return message && ch.JSON.FinishReason.Raw() == ""
}

package codec

import (
	"strings"

	"github.com/openai/openai-go/v3"
)

// one-api's Gemini channel, whose chat stream never finishes.
//
// one-api (songquanpeng/one-api, relay/adaptor/gemini/main.go at
// 8df4a267, its last release) asks Gemini for streamGenerateContent and
// writes each of its events as a chunk of its own
// (streamResponseGeminiChat2OpenAI): an id "chatcmpl-" and a new UUID
// without dashes each time, the model "gemini" whatever was asked, the
// text of the first part alone as the content, and the finish reason
// left out (its line is commented out; ChatCompletionsStreamResponseChoice
// omits a nil one), no role and no usage. After Gemini's last event its
// StreamHandler writes [DONE], also when its read of the upstream failed.
// Read as any other stream, every whole answer was a cut one
// (KindTruncated "no finish_reason"), and a Router carried on an answer
// that was whole; a cut one is the same bytes, and is now taken for
// whole, as one-api's own callers take it.

// oneAPIGeminiChunk reports whether c is in the shape of one-api's chunks
// of a Gemini answer: the model "gemini", an id "chatcmpl-" and 32
// lower-case hexadecimal digits, a created member, no usage member, and
// one choice, the first, with no finish_reason member.
func oneAPIGeminiChunk(c *openai.ChatCompletionChunk) bool {
	if c.Model != "gemini" || c.Object != "chat.completion.chunk" || c.JSON.Created.Raw() == "" || c.JSON.Usage.Raw() != "" ||
		len(c.Choices) != 1 || c.Choices[0].JSON.FinishReason.Raw() != "" {
		return false
	}
	id, ok := strings.CutPrefix(c.ID, "chatcmpl-")
	return ok && len(id) == 32 && lowerHex(id)
}

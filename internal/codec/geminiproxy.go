package codec

import (
	"encoding/json"
	"strings"

	"github.com/openai/openai-go/v3"
)

// gemini-openai-proxy's chat stream.
//
// gemini-openai-proxy (zhu327/gemini-openai-proxy, pkg/adapter/chat.go at
// c47cefe, handleStreamIter) writes Gemini's answer as chunks of its own:
// the id "chatcmpl-" and a UUID without dashes, no role, and a usage
// member on every chunk (CompletionResponse's go-openai Usage has no
// omitempty: zeros and null details). It writes a finish chunk only for
// a Gemini finish reason past STOP (convertFinishReason: MAX_TOKENS,
// SAFETY, RECITATION, OTHER), so a whole answer ends with its usage chunk
// (choices [], when include_usage was asked) and [DONE], no finish
// reason; a failure of Gemini's stream is written as an error object
// before [DONE]. Read as any other stream, every whole answer was a cut
// one, and a Router carried it on. Gemini's function calls it writes as
// the JSON of go-openai's tool calls in the content of a chunk that
// finishes "tool_calls" (genaiResponseToStreamCompletionResponse), which
// a caller would read as the answer's text, with no call.

// geminiProxyChunk reports whether c is in the shape of
// gemini-openai-proxy's chunks: an id "chatcmpl-" and 32 lower-case
// hexadecimal digits, a usage object, and either no choice (its usage
// chunk) or one, the first, whose delta has no role and whose usage
// counts nothing.
func geminiProxyChunk(c *openai.ChatCompletionChunk) bool {
	if c.Object != "chat.completion.chunk" || !strings.HasPrefix(c.JSON.Usage.Raw(), "{") {
		return false
	}
	id, ok := strings.CutPrefix(c.ID, "chatcmpl-")
	if !ok || len(id) != 32 || !lowerHex(id) {
		return false
	}
	switch len(c.Choices) {
	case 0:
		return true
	case 1:
		ch := &c.Choices[0]
		return ch.Index == 0 && ch.Delta.JSON.Role.Raw() == "" && c.Usage.TotalTokens == 0 && c.Usage.PromptTokens == 0
	}
	return false
}

// callsAsContent makes the tool calls a choice of chunk c that finished
// for "tool_calls" holds as the JSON of an array of calls in its content,
// as gemini-openai-proxy writes them (see above), the choice's tool
// calls, and its content empty, when c is in that proxy's shape (see
// geminiProxyChunk), the choice has no tool calls of its own and every
// entry names a function. Another server's answer that opens with "[{"
// stays its text: such a server sends its calls as tool calls, and may
// send their JSON as text beside them. Only a finish chunk is checked.
func callsAsContent(c *openai.ChatCompletionChunk, ch *openai.ChatCompletionChunkChoice) {
	d := &ch.Delta
	if len(d.ToolCalls) > 0 || !strings.HasPrefix(d.Content, "[{") || !geminiProxyChunk(c) {
		return
	}
	var calls []openai.ChatCompletionChunkChoiceDeltaToolCall
	if json.Unmarshal([]byte(d.Content), &calls) != nil {
		return
	}
	for i := range calls {
		if calls[i].Function.Name == "" {
			return
		}
		if calls[i].Type == "" {
			calls[i].Type = "function"
		}
	}
	d.ToolCalls, d.Content = calls, ""
}

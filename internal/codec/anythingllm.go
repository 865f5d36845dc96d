package codec

import "github.com/openai/openai-go/v3"

// AnythingLLM's error chunk.
//
// AnythingLLM's OpenAI-compatible endpoint (Mintplex-Labs/anything-llm,
// server/utils/chats/openaiCompatible.js, streamChat and formatJSON)
// rewrites every chunk of its own chat stream as a chat chunk labelled
// "chat.completion", the role on every delta and "usage":{} on every
// chunk but the last. When its provider's stream throws mid-answer,
// handleDefaultStreamResponseV2 (server/utils/helpers/chat/responses.js)
// writes an abort chunk holding the error's message, which formatJSON
// turns into a delta of content null and finish_reason null, the message
// dropped; then streamChat writes its finishing chunk, "stop" and the
// usage, as for a whole answer. Read as any other stream, the cut answer
// is a whole one.

// anythingLLMObject is the object AnythingLLM's endpoint labels its
// stream's chunks with, a whole answer's.
const anythingLLMObject = `"chat.completion"`

// DroppedError reports whether ev, a decoded event, is the chat chunk
// AnythingLLM's endpoint makes of its provider's failure: labelled "chat.completion",
// "usage":{}, one choice without a finish reason whose delta holds the
// role "assistant" and content null and nothing else. Its ordinary
// chunks hold a string of content, and other servers' chunks of content
// null carry something beside it (a tool call, reasoning) or are labelled
// chunks.
func DroppedError(ev Event) bool {
	c, ok := ev.Orig.(*openai.ChatCompletionChunk)
	if !ok || c == nil || c.JSON.Object.Raw() != anythingLLMObject || c.JSON.Usage.Raw() != "{}" || len(c.Choices) != 1 {
		return false
	}
	ch := &c.Choices[0]
	d := &ch.Delta
	return ch.FinishReason == "" && d.Role == "assistant" && d.JSON.Content.Raw() == "null" &&
		len(d.ToolCalls) == 0 && !d.JSON.FunctionCall.Valid() && !d.JSON.Refusal.Valid() && len(d.JSON.ExtraFields) == 0
}

package codec

import "github.com/openai/openai-go/v3"

// A whole chat completion sent as an event of a stream.
//
// AutoGen for .NET's AutoGen.WebAPI (microsoft/autogen
// dotnet/src/AutoGen.WebAPI/OpenAI/Service/OpenAIChatCompletionService.cs,
// GetStreamingChatCompletionAsync) answers a streamed request to an agent
// that cannot stream with the agent's whole reply as the stream's only
// event: object "chat.completion", one choice whose `message` holds the
// text where a chunk has a delta, finish_reason "completed", and then the
// end of the body (its middleware writes [DONE] only in place of a "stop"
// finish). Read as a chunk, the event had no delta: a whole answer with no
// text, nil error, and the reply lost.

// messageInStream reports whether chunk c is a whole chat completion
// rather than a chunk: labelled "chat.completion", every choice finished
// and none with a delta member. Only such an event that opens a stream is
// decoded again as a whole answer (see WholeChat, ChatStream.Decode): a
// chunk of a stream labelled so (exo's, AnythingLLM's, AutoGen.WebAPI's
// own) has a delta, and MiniMax's chatcompletion_v2 sends the whole
// answer again as such an event after its deltas (see usage.go).
func messageInStream(c *openai.ChatCompletionChunk) bool {
	if c.Object != "chat.completion" || len(c.Choices) == 0 {
		return false
	}
	for i := range c.Choices {
		if ch := &c.Choices[i]; ch.FinishReason == "" || ch.JSON.Delta.Raw() != "" {
			return false
		}
	}
	return true
}

package codec

import (
	"strings"

	"github.com/openai/openai-go/v3"
)

// AutoGen for .NET's agent served as a chat endpoint, which never finishes.
//
// AutoGen.WebAPI (microsoft/autogen dotnet/src/AutoGen.WebAPI,
// UseAgentAsOpenAIChatCompletionEndpoint) streams an agent's reply as one
// chunk per update, each written from its own DTO with nulls left out:
// members created, choices, model and object "chat.completion" in that
// order, no id, no usage; one choice of index 0 whose delta carries the
// role "assistant" and the update's text, and no finish_reason member.
// The chunk that would carry finish_reason "stop" is never written: the
// middleware writes `data: [DONE]` in its place
// (OpenAIChatCompletionMiddleware.cs, InvokeAsync;
// OpenAI/Service/OpenAIChatCompletionService.cs,
// GetStreamingChatCompletionAsync; OpenAI/DTO/OpenAIChatCompletion.cs). Read
// as any other stream, every whole answer was a cut one (KindTruncated "no
// finish_reason"), and a Router carried on an answer that was whole.

// autogenWebAPIChunk reports whether c is in the shape of AutoGen.WebAPI's
// chunks: its JSON opens with the created member (the id member the
// DTO puts first left out as null), object "chat.completion", no usage,
// and one choice of index 0 with no finish_reason member whose delta
// carries the role "assistant".
func autogenWebAPIChunk(c *openai.ChatCompletionChunk) bool {
	if c.Object != "chat.completion" || c.JSON.ID.Raw() != "" || c.JSON.Usage.Raw() != "" || len(c.Choices) != 1 ||
		!strings.HasPrefix(c.RawJSON(), `{"created":`) {
		return false
	}
	ch := &c.Choices[0]
	return ch.Index == 0 && ch.JSON.FinishReason.Raw() == "" && ch.Delta.JSON.Role.Raw() == `"assistant"`
}

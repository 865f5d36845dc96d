package codec

import (
	"strings"

	"github.com/openai/openai-go/v3"
)

// errorAsContent returns the error of chunk c when c is an error written
// as an answer: one choice whose delta opens the answer (its role) with
// content "Error: " and a message, and ends it with finish_reason "error".
// vLLM's Semantic Router replays so an error body its semantic cache
// holds to a streamed request (vllm-project/semantic-router,
// pkg/utils/http/response.go, buildStreamingCacheErrorBody): read as
// text, the message would be the answer's start, which a Router would
// continue.
func errorAsContent(c *openai.ChatCompletionChunk) *ServerError {
	if len(c.Choices) != 1 {
		return nil
	}
	ch := &c.Choices[0]
	msg, ok := strings.CutPrefix(ch.Delta.Content, "Error: ")
	if !ok || ch.FinishReason != "error" || ch.Delta.Role == "" || len(ch.Delta.ToolCalls) > 0 {
		return nil
	}
	return &ServerError{Message: msg, Type: "server_error"}
}

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
	ch, msg, ok := contentAfter(c, "Error: ")
	if !ok || ch.FinishReason != "error" || ch.Delta.Role == "" {
		return nil
	}
	return &ServerError{Message: msg, Type: "server_error"}
}

// contentAfter returns chunk c's one choice and what its content holds
// after prefix, when c has one choice, with no tool call, whose content
// begins with prefix: how servers that write a failure as an answer's
// text begin it (errorAsContent, omniError, commandCodeError, each with
// its own prefix and checks). A chunk of text pays a length and a prefix
// comparison.
func contentAfter(c *openai.ChatCompletionChunk, prefix string) (ch *openai.ChatCompletionChunkChoice, rest string, ok bool) {
	if len(c.Choices) != 1 || len(c.Choices[0].Delta.ToolCalls) > 0 {
		return nil, "", false
	}
	ch = &c.Choices[0]
	rest, ok = strings.CutPrefix(ch.Delta.Content, prefix)
	return ch, rest, ok
}

// bracketedError returns the error of chunk c when c is InfiniLM's
// failure written as an answer's last piece: one choice finished
// "error" whose content is "[Error: <the exception>]", or finished
// "timeout" whose content is "[Request timeout]", the answer's end past
// the server's limit (InfiniTensor/InfiniLM
// python/infinilm/server/inference_server.py, _stream_chat, which then
// sends [DONE]). Read as text, the words would end the answer, and a
// Router would continue them. Only a chunk that finishes so pays the
// content's comparison.
func bracketedError(c *openai.ChatCompletionChunk) *ServerError {
	if len(c.Choices) != 1 {
		return nil
	}
	switch c.Choices[0].FinishReason {
	case "error":
		_, msg, ok := contentAfter(c, "[Error: ")
		if !ok || !strings.HasSuffix(msg, "]") {
			return nil
		}
		return &ServerError{Message: strings.TrimSuffix(msg, "]"), Type: "server_error"}
	case "timeout":
		if _, rest, ok := contentAfter(c, "[Request timeout]"); !ok || rest != "" {
			return nil
		}
		return &ServerError{Message: "Request timeout", Type: "server_error"}
	}
	return nil
}

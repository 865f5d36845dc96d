package codec

import (
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/respjson"
)

// RAGFlow's OpenAI-compatible chat, whose failures are written as text.
//
// RAGFlow serves a chat assistant as /api/v1/chats_openai/<chat_id>/chat/completions
// (infiniflow/ragflow api/apps/sdk/session.py, chat_completion_openai_like
// and its streamed_response_generator, v0.24.0), and since April 2026 as
// /api/v1/openai/<chat_id>/chat/completions, the old path kept
// (api/apps/restful_apis/openai_api.py, _stream_chat_completion_sse;
// api/apps/backward_compat.py). Every chunk is one dictionary it writes
// again: the role on every delta beside function_call and tool_calls
// null and reasoning_content. Its model was the literal "model" until
// v0.24.0; it is now the model the request named, or the chat's own when
// the request names the placeholder "model". When the chat it streams
// raises, it writes "**ERROR**: " and the exception's words as the next
// delta's content, then its usual last chunk, finish "stop" and the
// usage, and data:[DONE]. Read as text, a failed answer was a whole one
// that ends with the failure's words, and a Router did not carry it on.

// ragFlowErrorPrefix opens the failure RAGFlow writes as a delta's content.
const ragFlowErrorPrefix = "**ERROR**: "

// ragFlowError returns the error of chunk c when c is RAGFlow's failure
// written as text: a chunk whose one choice's delta, in the shape RAGFlow
// writes every delta (the role, function_call and tool_calls null, a
// reasoning_content member), opens with ragFlowErrorPrefix and has no
// finish reason. Its model says nothing: RAGFlow's builds since April
// 2026 write the model's own name there. A chunk of text pays a length
// and a prefix comparison.
func ragFlowError(c *openai.ChatCompletionChunk) *ServerError {
	ch, msg, ok := contentAfter(c, ragFlowErrorPrefix)
	if !ok || ch.FinishReason != "" || ch.Delta.Role != "assistant" || msg == "" {
		return nil
	}
	d := &ch.Delta
	if d.JSON.FunctionCall.Raw() != respjson.Null || d.JSON.ToolCalls.Raw() != respjson.Null {
		return nil
	}
	if _, ok := d.JSON.ExtraFields[reasoningContent]; !ok {
		return nil
	}
	return &ServerError{Message: msg, Type: "server_error"}
}

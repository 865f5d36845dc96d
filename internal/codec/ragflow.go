package codec

import "github.com/openai/openai-go/v3"

// RAGFlow's OpenAI-compatible chat, whose failures are written as text.
//
// RAGFlow serves a chat assistant as /api/v1/chats_openai/<chat_id>/chat/completions
// (infiniflow/ragflow api/apps/sdk/session.py, chat_completion_openai_like
// and its streamed_response_generator). Every chunk is one dictionary it
// writes again: the model the literal "model", the role on every delta
// beside function_call and tool_calls null and reasoning_content. When
// the chat it streams raises, it writes "**ERROR**: " and the exception's
// words as the next delta's content, then its usual last chunk, finish
// "stop" and the usage, and data:[DONE]. Read as text, a failed answer
// was a whole one that ends with the failure's words, and a Router did not
// carry it on.

// ragFlowErrorPrefix opens the failure RAGFlow writes as a delta's content.
const ragFlowErrorPrefix = "**ERROR**: "

// ragFlowError returns the error of chunk c when c is RAGFlow's failure
// written as text: a chunk of its model "model" whose one choice's delta,
// with the role and a reasoning_content member as RAGFlow writes every
// delta, opens with ragFlowErrorPrefix and has no finish reason. Another
// server's chunk pays a comparison of its model.
func ragFlowError(c *openai.ChatCompletionChunk) *ServerError {
	if c.Model != "model" {
		return nil
	}
	ch, msg, ok := contentAfter(c, ragFlowErrorPrefix)
	if !ok || ch.FinishReason != "" || ch.Delta.Role != "assistant" || msg == "" {
		return nil
	}
	if _, ok := ch.Delta.JSON.ExtraFields[reasoningContent]; !ok {
		return nil
	}
	return &ServerError{Message: msg, Type: "server_error"}
}

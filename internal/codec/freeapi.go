package codec

import (
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/respjson"
)

// The "free-api" bridges' finish chunk.
//
// LLM-Red-Team's bridges of web chats to /v1/chat/completions
// (kimi-free-api, qwen-free-api, glm-free-api, step-free-api,
// metaso-free-api: one code base, src/api/controllers/chat.ts,
// createTransStream) end every stream with a chunk of finish_reason
// "stop" that carries a fixed usage, {"prompt_tokens": 1,
// "completion_tokens": 1, "total_tokens": 2}, whatever was asked and
// answered, and into whose content they write what the web chat said
// instead of an answer: a notice that its moderation stopped the answer
// (kimi-free-api on Kimi's `error` event, qwen-free-api when the answer
// may not be shared), or, in qwen-free-api, the upstream's failure
// ("服务暂时不可用，第三方响应错误：" and its code). Read as they are, a
// filtered answer is a whole one that ends with the bridge's notice, a
// failed one is an answer of the failure's words, and every figure built
// on tokens is made up.

// freeAPIModerationNotice is the notice the bridges write as the last
// piece of an answer their web chat stopped: "generation was stopped as
// the content is non-compliant; let us change the topic".
const freeAPIModerationNotice = "\n[内容由于不合规被停止生成，我们换个话题吧]"

// freeAPIUpstreamError opens the failure qwen-free-api writes as the last
// piece of an answer when Qwen's web chat reports an error code: "the
// service is unavailable for now, third-party response error: ".
const freeAPIUpstreamError = "服务暂时不可用，第三方响应错误："

// webChatChunk reads chunk c as the web-chat bridges mean it: the
// free-api bridges' fixed usage dropped (see dropFreeAPIUsage), and a
// finish chunk's content read (see freeAPIFinish, chat2APIFiltered); it
// returns the upstream's failure a finish chunk carries. A chunk of text
// without usage pays two field checks.
func webChatChunk(c *openai.ChatCompletionChunk) *ServerError {
	if c.JSON.Usage.Valid() {
		dropFreeAPIUsage(c)
	}
	if len(c.Choices) != 1 || c.Choices[0].FinishReason == "" {
		return nil
	}
	chat2APIFiltered(c)
	return freeAPIFinish(c)
}

// freeAPIFinish reads chunk c, one that carries a finish reason, as the
// bridges mean it (see above): a moderation notice at the end of its
// content is cut and the finish becomes "content_filter"; a content that
// is the upstream's failure (after the notice, or alone) is the server's
// error, returned. Only the finish chunk is checked, so a chunk of text
// pays nothing.
func freeAPIFinish(c *openai.ChatCompletionChunk) *ServerError {
	if len(c.Choices) != 1 {
		return nil
	}
	ch := &c.Choices[0]
	if ch.FinishReason != "stop" && ch.FinishReason != "length" || len(ch.Delta.ToolCalls) > 0 {
		return nil
	}
	s := ch.Delta.Content
	if msg, ok := strings.CutPrefix(strings.TrimPrefix(s, freeAPIModerationNotice), freeAPIUpstreamError); ok {
		return &ServerError{Message: freeAPIUpstreamError + msg, Type: "server_error"}
	}
	if text, ok := strings.CutSuffix(s, freeAPIModerationNotice); ok {
		ch.Delta.Content, ch.FinishReason = text, "content_filter"
	}
	return nil
}

// freeAPIUsage reports whether u, a chat chunk's usage, is the bridges'
// fixed one (see above). No chat request is one token long: a chat
// template alone takes more, so a real count is never taken for it.
func freeAPIUsage(u *openai.CompletionUsage) bool {
	return u.PromptTokens == 1 && u.CompletionTokens == 1 && u.TotalTokens == 2
}

// dropFreeAPIUsage removes the bridges' fixed usage from chunk c, so that
// the caller has none, as from a server that does not count, rather than
// a wrong one. It checks only a chunk that carries a usage.
func dropFreeAPIUsage(c *openai.ChatCompletionChunk) {
	if c.JSON.Usage.Valid() && freeAPIUsage(&c.Usage) {
		c.Usage, c.JSON.Usage = openai.CompletionUsage{}, respjson.Field{}
	}
}

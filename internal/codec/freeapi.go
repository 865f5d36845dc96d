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

// webChatChunk reads chunk c as the web-chat bridges mean it: a finish
// chunk's content read (see chat2APIFiltered), and, when it carries the
// free-api bridges' fixed usage (see freeAPIUsage), that usage dropped
// and its content read (see freeAPIFinish); it returns the upstream's
// failure such a chunk carries. Only the bridges' finish chunk holds
// their usage and their words, so neither is looked for elsewhere: a
// real count of 1 and 1 in another server's chunk is kept, and an
// answer of another server that ends with the bridges' words is the
// answer. A chunk of text pays two field checks.
func webChatChunk(c *openai.ChatCompletionChunk) *ServerError {
	if len(c.Choices) != 1 || c.Choices[0].FinishReason == "" {
		return nil
	}
	chat2APIFiltered(c)
	if !freeAPIUsage(c) {
		return nil
	}
	c.Usage, c.JSON.Usage = openai.CompletionUsage{}, respjson.Field{}
	return freeAPIFinish(c)
}

// freeAPIFinish reads chunk c, one that carries a finish reason, as the
// bridges mean it (see above): a moderation notice at the end of its
// content is cut and the finish becomes "content_filter"; a content that
// is the upstream's failure (after the notice, or alone) is the server's
// error, returned. Only the bridges' finish chunk, the one of their fixed
// usage, is read so.
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

// freeAPIUsage reports whether chunk c carries the bridges' fixed usage
// (see above): the three counts 1, 1 and 2 and nothing beside them. No
// chat request is one token long: a chat template alone takes more, so a
// count of a server's own is not taken for it; one that counts the
// prompt's cached tokens apart (a relay of Anthropic's usage, where a
// warm-up of max_tokens 1 after a cache breakpoint reads 1 and 1) says
// so beside them.
func freeAPIUsage(c *openai.ChatCompletionChunk) bool {
	u := &c.Usage
	return c.JSON.Usage.Valid() && u.PromptTokens == 1 && u.CompletionTokens == 1 && u.TotalTokens == 2 &&
		!u.JSON.PromptTokensDetails.Valid() && !u.JSON.CompletionTokensDetails.Valid() && len(u.JSON.ExtraFields) == 0
}

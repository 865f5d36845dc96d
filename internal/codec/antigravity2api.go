package codec

import (
	"strings"

	"github.com/openai/openai-go/v3"
)

// antigravity2apiPrefix opens the failure antigravity2api writes as an
// answer's text (see antigravity2apiError): "错误: " ("Error: ").
const antigravity2apiPrefix = "错误: "

// noAntigravityToken is antigravity2api's failure when it holds no
// account's token ("no token available, run npm run login to get one").
const noAntigravityToken = "没有可用的token，请运行 npm run login 获取token"

// antigravity2apiError returns the error of chunk c when c is the refusal
// of Google Antigravity's upstream that antigravity2api, a bridge that
// serves Antigravity accounts as /v1/chat/completions, writes as the
// answer's text. A failure before the first chunk is caught and written as
// one chunk whose content is "错误: " and the message, which a chunk of an
// empty delta finished "stop" and [DONE] follow (liuw1535/antigravity2api-nodejs
// src/server/index.js, the chat route's catch). The upstream's status
// comes as "API请求失败 (<status>): <its body>" ("API request failed"), or
// "Unknown" for a request that got no answer, and its 403 as
// "该账号没有使用权限，已自动禁用。错误详情: <its body>" ("this account may
// not use it and was disabled"; src/api/client.js, handleApiError); a
// bridge with no account left says so, noAntigravityToken. Read
// as text, the refusal would be the whole answer. The status goes into
// Code, whence a refusal of 400 to 499 is the request's (a breaker does
// not count it) and a 429 or 5xx the route's. Only a chunk that opens with
// the prefix pays more than its comparison.
func antigravity2apiError(c *openai.ChatCompletionChunk) *ServerError {
	ch, msg, ok := contentAfter(c, antigravity2apiPrefix)
	if !ok || ch.FinishReason != "" {
		return nil
	}
	if msg == noAntigravityToken {
		return &ServerError{Message: msg, Type: "server_error"}
	}
	if strings.HasPrefix(msg, "该账号没有使用权限，已自动禁用。错误详情: ") {
		return &ServerError{Code: "403", Message: msg, Type: "server_error"}
	}
	rest, ok := strings.CutPrefix(msg, "API请求失败 (")
	if !ok {
		return nil
	}
	status, _, ok := strings.Cut(rest, "): ")
	switch {
	case !ok:
		return nil
	case status == "Unknown":
		status = ""
	case !threeDigits(status):
		return nil
	}
	return &ServerError{Code: status, Message: msg, Type: "server_error"}
}

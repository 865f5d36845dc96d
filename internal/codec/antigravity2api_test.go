package codec

import (
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestAntigravity2apiError checks that only a chunk whose content is
// antigravity2api's "错误: " and one of its two refusals is read as an
// error event, and that text which looks like it stays text.
func TestAntigravity2apiError(t *testing.T) {
	chat := Chat(openai.ChatCompletionNewParams{}, true)
	const head = `{"id":"chatcmpl-1787900000000","object":"chat.completion.chunk","created":1787900000,"model":"gemini-3-pro-high","choices":[{"index":0,"delta":{"content":"`
	tests := []decodedError{
		{"a 429 with Google's body", head + `错误: API请求失败 (429): {\n  \"error\": {\n    \"code\": 429\n  }\n}"},"finish_reason":null}]}`, "API请求失败 (429): {\n  \"error\": {\n    \"code\": 429\n  }\n}"},
		{"no answer", head + `错误: API请求失败 (Unknown): socket hang up"},"finish_reason":null}]}`, "API请求失败 (Unknown): socket hang up"},
		{"the account's 403", head + `错误: 该账号没有使用权限，已自动禁用。错误详情: denied"},"finish_reason":null}]}`, "该账号没有使用权限，已自动禁用。错误详情: denied"},
		{"not a status", head + `错误: API请求失败 (abc): x"},"finish_reason":null}]}`, ""},
		{"no closing", head + `错误: API请求失败 (429"},"finish_reason":null}]}`, ""},
		{"finished", head + `错误: API请求失败 (429): x"},"finish_reason":"stop"}]}`, ""},
		{"text before it", head + `日志: 错误: API请求失败 (429): x"},"finish_reason":null}]}`, ""},
		{"no account", head + `错误: 没有可用的token，请运行 npm run login 获取token"},"finish_reason":null}]}`, "没有可用的token，请运行 npm run login 获取token"},
		{"another error", head + `错误: 没有可用的token"},"finish_reason":null}]}`, ""},
	}
	wantErrorEvents(t, chat, tests)
}

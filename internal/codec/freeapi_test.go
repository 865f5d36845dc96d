package codec

import (
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestFreeAPIFinish checks that only the free-api bridges' finish chunk is
// read anew: a moderation notice at the end of its content becomes finish
// "content_filter" without the notice, the upstream's failure written as
// its content an error event, and that a chunk of text is left alone.
func TestFreeAPIFinish(t *testing.T) {
	chat := Chat(openai.ChatCompletionNewParams{}, true)
	const notice = `\n[内容由于不合规被停止生成，我们换个话题吧]`
	const fixed = `,"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}`
	for _, tt := range []struct{ name, data, text, finish string }{
		{"the notice alone", `{"id":"c","choices":[{"index":0,"delta":{"content":"` + notice + `"},"finish_reason":"stop"}]` + fixed + `}`, "", "content_filter"},
		{"text and the notice", `{"id":"c","choices":[{"index":0,"delta":{"content":"keep` + notice + `"},"finish_reason":"stop"}]` + fixed + `}`, "keep", "content_filter"},
		{"after length", `{"id":"c","choices":[{"index":0,"delta":{"content":"` + notice + `"},"finish_reason":"length"}]` + fixed + `}`, "", "content_filter"},
		{"no finish reason", `{"id":"c","choices":[{"index":0,"delta":{"content":"` + notice + `"},"finish_reason":null}]}`, "\n[内容由于不合规被停止生成，我们换个话题吧]", ""},
		{"the notice quoted", `{"id":"c","choices":[{"index":0,"delta":{"content":"` + notice + ` said"},"finish_reason":"stop"}]` + fixed + `}`, "\n[内容由于不合规被停止生成，我们换个话题吧] said", "stop"},
		{"the words from another server", `{"id":"c","choices":[{"index":0,"delta":{"content":"keep` + notice + `"},"finish_reason":"stop"}]}`, "keep\n[内容由于不合规被停止生成，我们换个话题吧]", "stop"},
		{"the words beside a real count", `{"id":"c","choices":[{"index":0,"delta":{"content":"keep` + notice + `"},"finish_reason":"stop"}],"usage":{"prompt_tokens":31,"completion_tokens":9,"total_tokens":40}}`, "keep\n[内容由于不合规被停止生成，我们换个话题吧]", "stop"},
		{"an empty finish", `{"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`, "", "stop"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ev, err := chat.Decode([]byte(tt.data))
			if err != nil {
				t.Fatalf("Decode = %v", err)
			}
			ch := ev.Chunk.Choices[0]
			if ch.Delta.Content != tt.text || ch.FinishReason != tt.finish {
				t.Errorf("Decode = %q, finish %q; want %q, finish %q", ch.Delta.Content, ch.FinishReason, tt.text, tt.finish)
			}
		})
	}
	wantErrorEvents(t, chat, []decodedError{
		{"qwen's upstream failure", `{"id":"s-m","choices":[{"index":0,"delta":{"content":"服务暂时不可用，第三方响应错误：500"},"finish_reason":"stop"}]` + fixed + `}`, "服务暂时不可用，第三方响应错误：500"},
		{"after the notice", `{"id":"s-m","choices":[{"index":0,"delta":{"content":"` + notice + `服务暂时不可用，第三方响应错误：500"},"finish_reason":"stop"}]` + fixed + `}`, "服务暂时不可用，第三方响应错误：500"},
		{"after text", `{"id":"s-m","choices":[{"index":0,"delta":{"content":"x服务暂时不可用，第三方响应错误：500"},"finish_reason":"stop"}]` + fixed + `}`, ""},
		{"a whole answer of another server", `{"id":"s-m","choices":[{"index":0,"delta":{"content":"服务暂时不可用，第三方响应错误：500"},"finish_reason":"stop"}]}`, ""},
		{"without a finish", `{"id":"s-m","choices":[{"index":0,"delta":{"content":"服务暂时不可用，第三方响应错误：500"},"finish_reason":null}]}`, ""},
	})
}

// TestFreeAPIUsage checks that the bridges' fixed usage (1, 1, 2) is
// dropped from their finish chunk, and a real count kept: also 1 and 1
// beside cached tokens (a warm-up of max_tokens 1 through a relay that
// counts the prompt's cached tokens apart), and 1 and 1 in a usage chunk,
// which the bridges never send.
func TestFreeAPIUsage(t *testing.T) {
	chat := Chat(openai.ChatCompletionNewParams{}, true)
	for _, tt := range []struct {
		name, usage string
		want        bool
	}{
		{"fixed", `{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}`, false},
		{"a count", `{"prompt_tokens":12,"completion_tokens":1,"total_tokens":13}`, true},
		{"beside cached tokens", `{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2,"prompt_tokens_details":{"cached_tokens":2048}}`, true},
		{"one prompt token, none out", `{"prompt_tokens":1,"completion_tokens":0,"total_tokens":1}`, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ev, err := chat.Decode([]byte(`{"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":` + tt.usage + `}`))
			if err != nil {
				t.Fatalf("Decode = %v", err)
			}
			if ev.HasUsage != tt.want || ev.Chunk.JSON.Usage.Valid() != tt.want {
				t.Errorf("usage %s: HasUsage = %v, in the chunk %v; want %v", tt.usage, ev.HasUsage, ev.Chunk.JSON.Usage.Valid(), tt.want)
			}
		})
	}
	ev, err := chat.Decode([]byte(`{"id":"c","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`))
	if err != nil || !ev.HasUsage {
		t.Errorf("a usage chunk of 1 and 1: HasUsage = %v, %v; want true", ev.HasUsage, err)
	}
}

package codec

import (
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestGeminiProxyChunk checks that only chunks in gemini-openai-proxy's
// shape are taken for its: its id, a usage object of zeros beside one
// choice without a role, or its usage chunk.
func TestGeminiProxyChunk(t *testing.T) {
	const id = `"id":"chatcmpl-4f9c2e7a1b3d4c5e8f6a0b2c4d6e8f1a","object":"chat.completion.chunk","created":1,"model":"gemini-2.0-flash"`
	const zero = `"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0,"prompt_tokens_details":null,"completion_tokens_details":null}`
	for _, tt := range []struct {
		name, data string
		want       bool
	}{
		{"a character", `{` + id + `,"choices":[{"index":0,"delta":{"content":"L"},"finish_reason":null}],` + zero + `}`, true},
		{"its usage chunk", `{` + id + `,"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":8,"total_tokens":17}}`, true},
		{"a role", `{` + id + `,"choices":[{"index":0,"delta":{"role":"assistant","content":"L"},"finish_reason":null}],` + zero + `}`, false},
		{"no usage", `{` + id + `,"choices":[{"index":0,"delta":{"content":"L"},"finish_reason":null}]}`, false},
		{"usage null", `{` + id + `,"choices":[{"index":0,"delta":{"content":"L"},"finish_reason":null}],"usage":null}`, false},
		{"counts beside a choice", `{` + id + `,"choices":[{"index":0,"delta":{"content":"L"},"finish_reason":null}],"usage":{"prompt_tokens":9,"completion_tokens":1,"total_tokens":10}}`, false},
		{"another id", `{"id":"chatcmpl-abc","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"L"},"finish_reason":null}],` + zero + `}`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var c openai.ChatCompletionChunk
			if err := c.UnmarshalJSON([]byte(tt.data)); err != nil {
				t.Fatal(err)
			}
			if got := geminiProxyChunk(&c); got != tt.want {
				t.Errorf("geminiProxyChunk(%s) = %v, want %v", tt.data, got, tt.want)
			}
		})
	}
}

// TestCallsAsContent checks that tool calls written as the JSON of the
// content of a chunk of gemini-openai-proxy's finished "tool_calls"
// become its tool calls, and that any other content, and the same content
// from a server of another shape, stays text.
func TestCallsAsContent(t *testing.T) {
	chat := Chat(openai.ChatCompletionNewParams{}, true)
	const calls = `[{\"index\":0,\"id\":\"get_weather-0\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"{\\\"city\\\":\\\"Zurich\\\"}\"}}]`
	const proxy = `"id":"chatcmpl-4f9c2e7a1b3d4c5e8f6a0b2c4d6e8f1a","object":"chat.completion.chunk","created":1,"model":"gemini-2.0-flash"`
	const zero = `,"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0,"prompt_tokens_details":null,"completion_tokens_details":null}`
	const text = "[{\"index\":0,\"id\":\"get_weather-0\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"{\\\"city\\\":\\\"Zurich\\\"}\"}}]"
	for _, tt := range []struct{ name, head, role, content, finish, text, call string }{
		{"calls as content", proxy, "", calls, `"tool_calls"`, "", "get_weather"},
		{"another server's text", `"id":"chatcmpl-9","object":"chat.completion.chunk","created":1,"model":"m"`, "", calls, `"tool_calls"`, text, ""},
		{"another server's role", proxy, `"role":"assistant",`, calls, `"tool_calls"`, text, ""},
		{"finished stop", proxy, "", calls, `"stop"`, text, ""},
		{"no name", proxy, "", `[{\"index\":0,\"function\":{\"arguments\":\"{}\"}}]`, `"tool_calls"`, `[{"index":0,"function":{"arguments":"{}"}}]`, ""},
		{"not JSON", proxy, "", `[{ not json`, `"tool_calls"`, `[{ not json`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ev, err := chat.Decode([]byte(`{` + tt.head + `,"choices":[{"index":0,"delta":{` + tt.role + `"content":"` + tt.content + `"},"finish_reason":` + tt.finish + `}]` + zero + `}`))
			if err != nil {
				t.Fatalf("Decode = %v", err)
			}
			d := ev.Chunk.Choices[0].Delta
			name := ""
			if len(d.ToolCalls) == 1 {
				name = d.ToolCalls[0].Function.Name
			}
			if d.Content != tt.text || name != tt.call || len(d.ToolCalls) > 1 {
				t.Errorf("Decode: content %q, %d calls (%q); want %q and the call %q", d.Content, len(d.ToolCalls), name, tt.text, tt.call)
			}
		})
	}
}

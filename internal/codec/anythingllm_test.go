package codec

import (
	"testing"

	"github.com/openai/openai-go/v3"
)

func TestDroppedError(t *testing.T) {
	const head = `{"id":"6f1c2a9e","object":"chat.completion","created":1,"model":"my-workspace",`
	for _, tc := range []struct {
		name, data string
		want       bool
	}{
		{"AnythingLLM's chunk of an error", head + `"choices":[{"index":0,"delta":{"role":"assistant","content":null},"logprobs":null,"finish_reason":null}],"usage":{}}`, true},
		{"its chunk of text", head + `"choices":[{"index":0,"delta":{"role":"assistant","content":"Latency"},"logprobs":null,"finish_reason":null}],"usage":{}}`, false},
		{"its chunk of the provider's finish", head + `"choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],"usage":{}}`, false},
		{"its error finished, abort", head + `"choices":[{"index":0,"delta":{"role":"assistant","content":null},"logprobs":null,"finish_reason":"abort"}],"usage":{}}`, false},
		{"a role chunk of content null", `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":null},"finish_reason":null}],"usage":{}}`, false},
		{"a role chunk with usage null", head + `"choices":[{"index":0,"delta":{"role":"assistant","content":null},"finish_reason":null}],"usage":null}`, false},
		{"a tool call", head + `"choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]},"finish_reason":null}],"usage":{}}`, false},
		{"reasoning", head + `"choices":[{"index":0,"delta":{"role":"assistant","content":null,"reasoning_content":"."},"finish_reason":null}],"usage":{}}`, false},
	} {
		ev, err := Chat(openai.ChatCompletionNewParams{}, true).Decode([]byte(tc.data))
		if err != nil {
			t.Fatalf("%s: Decode: %v", tc.name, err)
		}
		if got := DroppedError(ev); got != tc.want {
			t.Errorf("%s: DroppedError = %v, want %v", tc.name, got, tc.want)
		}
	}
}

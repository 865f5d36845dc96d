package codec

import (
	"testing"

	"github.com/openai/openai-go/v3"
)

func TestDroppedOllamaError(t *testing.T) {
	const head = `{"id":"chatcmpl-1","created":1,"object":"chat.completion.chunk",`
	for _, tc := range []struct {
		name, data, finish string
	}{
		{"the bridge's chunk of an error line", head + `"model":"ollama","choices":[{"index":0,"logprobs":null,"finish_reason":"stop","delta":{}}]}`, ""},
		{"an error line first, with the role", head + `"model":"ollama","choices":[{"index":0,"finish_reason":"stop","delta":{"role":"assistant"}}]}`, ""},
		{"the done line, with its usage", head + `"model":"ollama","choices":[{"index":0,"finish_reason":"stop","delta":{}}],"usage":{"prompt_tokens":3,"completion_tokens":2}}`, "stop"},
		{"another model's end", head + `"model":"qwen3:8b","choices":[{"index":0,"finish_reason":"stop","delta":{}}]}`, "stop"},
		{"text with the finish", head + `"model":"ollama","choices":[{"index":0,"finish_reason":"stop","delta":{"content":"."}}]}`, "stop"},
		{"reasoning with the finish", head + `"model":"ollama","choices":[{"index":0,"finish_reason":"stop","delta":{"reasoning_content":"."}}]}`, "stop"},
	} {
		ev, err := Chat(openai.ChatCompletionNewParams{}, true).Decode([]byte(tc.data))
		if err != nil {
			t.Fatalf("%s: Decode: %v", tc.name, err)
		}
		if got := ev.Chunk.Choices[0].FinishReason; got != tc.finish {
			t.Errorf("%s: finish reason = %q, want %q", tc.name, got, tc.finish)
		}
	}
}

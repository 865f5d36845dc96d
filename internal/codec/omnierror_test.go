package codec

import (
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestOmniError checks that only the failure chunk of a Lemonade omni
// collection ("\n\nError: " content, not finished, an omni id) is read as
// an error event; an answer that says "Error:" stays text.
func TestOmniError(t *testing.T) {
	chat := Chat(openai.ChatCompletionNewParams{}, true)
	tests := []decodedError{
		{"the collection's failure", `{"choices":[{"delta":{"content":"\n\nError: Chat component returned an empty response"},"finish_reason":null,"index":0}],"created":1,"id":"chatcmpl-omni-1788170400-3","model":"LMX-Omni-5.5B-Lite","object":"chat.completion.chunk"}`, "Chat component returned an empty response"},
		{"a model's answer that says Error:", `{"choices":[{"delta":{"content":"\n\nError: none"},"finish_reason":null,"index":0}],"id":"chatcmpl-Lm3nQ7xYw2aRk9TbVhJ4pCzE8uFgDs1o","object":"chat.completion.chunk"}`, ""},
		{"an omni artifact", `{"choices":[{"delta":{"content":"\n\n![generated image](data:image/png;base64,iVBO)\n\n"},"finish_reason":null,"index":0}],"id":"chatcmpl-omni-1788170400-3","object":"chat.completion.chunk"}`, ""},
		{"an omni answer's last words, finished", `{"choices":[{"delta":{"content":"\n\nError: none"},"finish_reason":"stop","index":0}],"id":"chatcmpl-omni-1788170400-3","object":"chat.completion.chunk"}`, ""},
	}
	wantErrorEvents(t, chat, tests)
}

package codec

import (
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestGeminiCLIError checks that only a chunk whose whole content is
// gemini-cli-openai's "Error: Stream request failed: <status>" is read as
// an error event, and that text which looks like it stays text.
func TestGeminiCLIError(t *testing.T) {
	chat := Chat(openai.ChatCompletionNewParams{}, true)
	const head = `{"id":"chatcmpl-c7ee686f","object":"chat.completion.chunk","created":1774050339,"model":"gemini-2.5-flash","choices":[{"index":0,"delta":{"content":"`
	tests := []decodedError{
		{"a 403 with the role", head + `Error: Stream request failed: 403","role":"assistant"},"finish_reason":null,"logprobs":null,"matched_stop":null}],"usage":null}`, "Stream request failed: 403"},
		{"a 429 after a switch notice", head + `Error: Stream request failed: 429"},"finish_reason":null,"logprobs":null,"matched_stop":null}],"usage":null}`, "Stream request failed: 429"},
		{"words after the status", head + `Error: Stream request failed: 403 Forbidden"},"finish_reason":null}]}`, ""},
		{"not a status", head + `Error: Stream request failed: abc"},"finish_reason":null}]}`, ""},
		{"finished", head + `Error: Stream request failed: 403"},"finish_reason":"stop"}]}`, ""},
		{"text before it", head + `The log says Error: Stream request failed: 403"},"finish_reason":null}]}`, ""},
		{"another error", head + `Error: Response has no body"},"finish_reason":null}]}`, ""},
	}
	wantErrorEvents(t, chat, tests)
}

package codec

import (
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestKiroContentLength checks that only kiro2api's message_delta of
// stop_reason "max_tokens" and a usage of zeros, with no choices, is read
// as the refusal of an input over the limit.
func TestKiroContentLength(t *testing.T) {
	chat := Chat(openai.ChatCompletionNewParams{}, true)
	tests := []decodedError{
		{"kiro2api's refusal", `{"delta":{"stop_reason":"max_tokens","stop_sequence":null},"type":"message_delta","usage":{"input_tokens":0,"output_tokens":0}}`, "Content length exceeds threshold"},
		{"an answer's own max_tokens", `{"delta":{"stop_reason":"max_tokens","stop_sequence":null},"type":"message_delta","usage":{"input_tokens":0,"output_tokens":64}}`, ""},
		{"an end turn", `{"delta":{"stop_reason":"end_turn","stop_sequence":null},"type":"message_delta","usage":{"input_tokens":0,"output_tokens":0}}`, ""},
		{"another event", `{"type":"ping"}`, ""},
		{"a chunk with a type", `{"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"input_tokens":0,"output_tokens":0},"choices":[{"index":0,"delta":{"content":"x"}}]}`, ""},
	}
	wantErrorEvents(t, chat, tests)
}

package wire

import (
	"io"
	"testing"
)

// TestBodyInMessage: an error body a relay put as text into its own
// error's message reaches openai-go as that body, its message and code
// kept (before: the upstream's JSON as the message, no code); a message
// that only looks like JSON, or says no message, stays as it was.
func TestBodyInMessage(t *testing.T) {
	for body, want := range map[string]string{
		// copilot-api relaying Copilot's refusal (ericc-ch/copilot-api#65).
		`{"error":{"message":"{\"error\":{\"message\":\"prompt token count of 13067 exceeds the limit of 12288\",\"code\":\"model_max_prompt_tokens_exceeded\"}}\n","type":"error"}}`: `{"error":{"message":"prompt token count of 13067 exceeds the limit of 12288","code":"model_max_prompt_tokens_exceeded"}}`,
		// copilot-api's own rate limit.
		`{"error":{"message":"{\"message\":\"Rate limit exceeded\"}","type":"error"}}`: `{"error":{"message":"Rate limit exceeded"}}`,
		`{"error":{"message":"{\"note\":\"no message here\"}","type":"error"}}`:        `{"error":{"message":"{\"note\":\"no message here\"}","type":"error"}}`,
		`{"error":{"message":"{not json","type":"error"}}`:                             `{"error":{"message":"{not json","type":"error"}}`,
		`{"error":{"message":"Request Entity Too Large\n","type":"error"}}`:            `{"error":{"message":"Request Entity Too Large\n","type":"error"}}`,
	} {
		res := response(400, nil, []byte(body))
		if cut := BoundErrorBody(res); cut != "" {
			t.Errorf("%s: cut %q", body, cut)
		}
		if got, _ := io.ReadAll(res.Body); string(got) != want {
			t.Errorf("BoundErrorBody(%s) gave %s, want %s", body, got, want)
		}
	}
}

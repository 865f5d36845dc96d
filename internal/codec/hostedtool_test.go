package codec

import (
	"errors"
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestHostedToolEvent: a failed hosted tool's status event (FriendliAI's
// serverless tools) decodes as an event without output, not as the
// stream's error; the same error in any other event is the server's.
func TestHostedToolEvent(t *testing.T) {
	req := Chat(openai.ChatCompletionNewParams{}, true)
	const errored = `{"name":"web:search","status":"ERRORED","message":null,"parameters":[{"name":"query","value":"q"}],"result":null,"error":{"type":"UNKNOWN","msg":"timed out"},"timestamp":1765000003,"usage":null,"tool_call_id":"call_1"}`
	for _, tc := range []struct {
		name, data string
		server     bool
	}{
		{"a tool's failure", errored, false},
		{"a tool's failure, no tool_call_id", `{"name":"web:search","status":"ERRORED","parameters":[],"error":{"type":"UNKNOWN","msg":"x"}}`, true},
		{"an unknown status", `{"name":"web:search","status":"FAILED","parameters":[],"tool_call_id":null,"error":{"msg":"x"}}`, true},
		{"beside choices", `{"name":"n","status":"ERRORED","parameters":[],"tool_call_id":null,"choices":[],"error":{"message":"x"}}`, true},
		{"an error object", `{"error":{"message":"overloaded"}}`, true},
	} {
		ev, err := req.Decode([]byte(tc.data))
		var e *Error
		switch isServer := err != nil && errors.As(err, &e) && e.Server != nil; {
		case isServer != tc.server:
			t.Errorf("%s: Decode = %v, want a server error %v", tc.name, err, tc.server)
		case !tc.server && (err != nil || ev.Outputs != 0):
			t.Errorf("%s: Decode = %d outputs, %v, want 0, nil", tc.name, ev.Outputs, err)
		}
	}
}

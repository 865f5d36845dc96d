package codec

import (
	"errors"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
)

// TestTypelessError: a Responses event with no type whose only words are
// a message (Bedrock Mantle's AWS error object, in either casing) is the
// server's error with that message; a typed event that carries a message
// (an error event) keeps its own reading, and a typeless event without
// one is no error.
func TestTypelessError(t *testing.T) {
	for _, tt := range []struct {
		name, data, want string
		isErr            bool
		code             string
	}{
		{"message", `{"message":"Too many requests, please wait before trying again."}`, "Too many requests, please wait before trying again.", true, ""},
		{"AWS casing", `{"Message":"Internal server error"}`, "Internal server error", true, ""},
		{"empty message", `{"message":""}`, "", false, ""},
		{"no message", `{"sequence_number":3}`, "", false, ""},
		{"keep-alive", `{}`, "", false, ""},
		{"a delta named by its event line only", `{"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hi"}`, "", false, ""},
		{"a chat chunk without object", `{"id":"c1","model":"m","choices":[{"index":0,"delta":{"content":"Hi"}}]}`, "", false, ""},
		{"a message object", `{"model":"m","message":{"role":"assistant","content":"Hi"},"done":false}`, "", false, ""},
		{"typed error event", `{"type":"error","code":"server_error","message":"boom"}`, "boom", true, "server_error"},
		{"with its code", `{"code":"invalid_prompt","message":"Invalid prompt."}`, "Invalid prompt.", true, "invalid_prompt"},
		{"with a code of digits", `{"code":429,"message":"Slow down."}`, "Slow down.", true, "429"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Response(responses.ResponseNewParams{}).Decode([]byte(tt.data))
			var e *Error
			if !errors.As(err, &e) || e.Server == nil {
				if tt.isErr {
					t.Fatalf("Decode(%s) = %v, want the server's error %q", tt.data, err, tt.want)
				}
				return
			}
			if !tt.isErr {
				t.Fatalf("Decode(%s) = %v, want no server error", tt.data, err)
			}
			var ae openai.Error
			_ = e.Server.Fill(&ae)
			if ae.Message != tt.want || ae.Code != tt.code {
				t.Errorf("Decode(%s): message %q, code %q, want %q, %q", tt.data, ae.Message, ae.Code, tt.want, tt.code)
			}
		})
	}
}

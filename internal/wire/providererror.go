package wire

import (
	"bytes"
	"strings"

	"github.com/tidwall/gjson"
)

// providerPrefix opens the message of the error musistudio/llms, the
// provider layer of claude-code-router, answers when its upstream refused
// a request: "Error from provider(<provider>,<model>: <status>): " and
// the upstream's body read as text (src/api/routes.ts,
// sendRequestToProvider). Its error handler then writes message + stack
// as the message, so the text is followed by the JavaScript stack trace,
// "Error: " and the whole message again, then its frames
// (src/api/middleware.ts, errorHandler); the code is
// "provider_response_error".
const providerPrefix = "Error from provider("

// providerError returns the upstream's error body that head, an error
// body of claude-code-router's, holds in its message: the upstream's JSON
// object (its message, type and code, and the wait a 429 of Gemini's asks
// for in its RetryInfo), or, where the upstream's body was no JSON
// object, an error of that message without the stack trace. Any other
// head is returned as it is.
func providerError(head []byte) []byte {
	e := gjson.GetBytes(head, "error")
	m := e.Get("message")
	if m.Type != gjson.String || e.Get("code").Str != "provider_response_error" || !strings.HasPrefix(m.Str, providerPrefix) {
		return head
	}
	msg := m.Str
	if i := strings.Index(msg[len(providerPrefix):], "Error: "+providerPrefix); i >= 0 {
		msg = msg[:len(providerPrefix)+i] // the stack trace cut off
	}
	i := strings.Index(msg, "): ")
	if i < 0 {
		return head
	}
	inner := bytes.TrimSpace([]byte(msg[i+len("): "):]))
	if first := gjson.GetBytes(inner, "0"); len(inner) > 0 && inner[0] == '[' && first.IsObject() {
		inner = []byte(first.Raw) // Gemini's OpenAI endpoint: an array of one error
	}
	if len(inner) > 0 && inner[0] == '{' && gjson.ValidBytes(inner) &&
		(gjson.GetBytes(inner, "error.message").Type == gjson.String || gjson.GetBytes(inner, "message").Type == gjson.String) {
		return inner
	}
	return errorObject(strings.TrimSpace(msg), e.Get("type").Str, e.Get("code").Str)
}

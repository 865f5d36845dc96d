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
// body of claude-code-router's, holds in its message, for BoundErrorBody
// to read as it reads a server answering directly: the upstream's JSON
// (its message, type and code, and the wait a 429 of Gemini's asks for in
// its RetryInfo) where it says a message (see saysError), or else an
// error of that message without the stack trace. Any other head is
// returned as it is.
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
	if inner := bytes.TrimSpace([]byte(msg[i+len("): "):])); saysError(inner) {
		return inner
	}
	return errorObject(strings.TrimSpace(msg), e.Get("type").Str, e.Get("code").Str)
}

// saysError reports whether body, an upstream's error body, says a
// message in a shape BoundErrorBody reads from a server answering
// directly: an error object, Gemini's array of one, or a shape of its
// own (see errorOfOwnShape), such as Ollama's, LM Studio's and
// llama-swap's "error" string or FastAPI's "detail".
func saysError(body []byte) bool {
	if len(body) == 0 || body[0] != '{' && body[0] != '[' && body[0] != '"' || !gjson.ValidBytes(body) {
		return false
	}
	if gjson.GetBytes(body, "error.message").Type == gjson.String || gjson.GetBytes(body, "0.error.message").Type == gjson.String {
		return true
	}
	_, _, _, ok := errorOfOwnShape(body)
	return ok
}

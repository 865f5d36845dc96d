package wire

import (
	"bytes"

	"github.com/tidwall/gjson"
)

// bodyInMessage returns the error body that head, an error body, holds as
// the text of its error's message, or head itself for any other body.
// copilot-api, which serves GitHub Copilot as an OpenAI-compatible API,
// answers a status its upstream refused with that status and the
// upstream's body read as text and put whole into a message of its own,
// {"error": {"message": "{\"error\":{\"message\":…,\"code\":…}}\n",
// "type": "error"}}, and its own refusals (its rate limit, 429) so too,
// from a body {"message": "Rate limit exceeded"} (ericc-ch/copilot-api
// src/lib/error.ts, forwardError; src/lib/rate-limit.ts): openai-go
// gives the caller the upstream's JSON as the message, and no code. Only
// a message that is a JSON object saying a message of its own, in an
// "error" object or at the top level, is taken.
func bodyInMessage(head []byte) []byte {
	m := gjson.GetBytes(head, "error.message")
	if m.Type != gjson.String {
		return head
	}
	inner := bytes.TrimSpace([]byte(m.Str))
	if len(inner) == 0 || inner[0] != '{' || !gjson.ValidBytes(inner) {
		return head
	}
	if gjson.GetBytes(inner, "error.message").Type != gjson.String && gjson.GetBytes(inner, "message").Type != gjson.String {
		return head
	}
	return inner
}

package wire

import (
	"net/http"
	"regexp"
)

// DeepInfra's OpenAI-compatible API (api.deepinfra.com/v1/openai)
// answers a prompt longer than its model takes with 500, not 400:
// {"error":{"message":"Requested input length 99009 exceeds maximum
// input length 8192"}} (langchain-ai/langchain#25671). The request's own
// fault: sent again it gets the same answer; openai-go sends a 500 again,
// twice by default, and a breaker counts it against a server that is
// well.

// deepInfraInputTooLong matches the whole message of that refusal.
var deepInfraInputTooLong = regexp.MustCompile(`^Requested input length \d+ exceeds maximum input length \d+$`)

// DeepInfraRequestError reports whether res is DeepInfra's 500 for a
// prompt longer than its model's input (see deepInfraInputTooLong). It
// reads the body, bounded already (BoundErrorBody), only under 500, and
// puts it back.
func DeepInfraRequestError(res *http.Response) bool {
	e, ok := errorOf(res, http.StatusInternalServerError)
	return ok && deepInfraInputTooLong.MatchString(e.Message)
}

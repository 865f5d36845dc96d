package wire

import (
	"net/http"
	"strings"

	"github.com/tidwall/gjson"
)

// llama-cpp-python's server (abetlen/llama-cpp-python,
// llama_cpp/server/errors.py, RouteErrorHandler) answers whatever its
// route raises, but for a context overflow and an unknown model path,
// with 500: {"error": {"message": str(exception), "type":
// "internal_server_error", "param": null, "code": null}}. Some of those
// are the request's own faults, answered the same whenever it is sent:
// two prompts on /v1/completions (app.py, create_completion: an
// assertion, whose message is ""), logprobs of a model loaded without
// logits_all (llama.py, _create_completion), a tool_choice naming a
// function the tools do not hold (llama_chat_format.py,
// chat_formatter_to_chat_completion_handler), and a body its schema
// refuses: FastAPI's RequestValidationError is raised inside the route
// handler RouteErrorHandler wraps, so it is answered 500, not 422 (a
// response_format of type json_schema, ggml-org/llama.cpp#23463), its
// message str() of the error. openai-go sends a 500
// again, twice by default, and a breaker counts it against a server that
// is well.

// llamaCppPythonRequestErrors are the messages of the request errors
// llama-cpp-python's server answers with 500 (0.3.35, August 2026).
var llamaCppPythonRequestErrors = []string{
	"logprobs is not supported for models created with logits_all=False",
	"' not found in tools.", // "Tool choice '<name>' not found in tools."
}

// LlamaCppPythonRequestError reports whether res is a request error that
// llama-cpp-python's server answered with 500 (see
// llamaCppPythonRequestErrors); asked is the body of the completions
// request as the caller made it, nil for another API: its message is
// empty for two prompts or more. It reads the body, bounded already
// (BoundErrorBody), and puts it back.
func LlamaCppPythonRequestError(res *http.Response, asked []byte) bool {
	e, ok := errorOf(res, http.StatusInternalServerError)
	if !ok || e.Type != "internal_server_error" {
		return false
	}
	if e.Message == "" {
		p := gjson.GetBytes(asked, "prompt")
		return p.IsArray() && len(p.Array()) > 1
	}
	return says(e.Message, llamaCppPythonRequestErrors) || requestValidation(e.Message)
}

// requestValidation reports whether msg is FastAPI's text of a
// RequestValidationError (fastapi/fastapi, fastapi/exceptions.py,
// ValidationException.__str__): "<n> validation error(s):", then each
// error's repr on a line of its own, the first of a part of the request
// ('body', 'query', 'header', 'path' or 'cookie' first in its loc). A
// ResponseValidationError, the server's own fault, has ('response', …).
func requestValidation(msg string) bool {
	n, rest, ok := strings.Cut(msg, " validation error")
	if !ok || n == "" || strings.Trim(n, "0123456789") != "" {
		return false
	}
	rest = strings.TrimPrefix(rest, "s")
	first, ok := strings.CutPrefix(rest, ":\n  {")
	if !ok {
		return false
	}
	first, _, _ = strings.Cut(first, "\n")
	_, loc, ok := strings.Cut(first, "'loc': ('")
	if !ok {
		return false
	}
	part, _, _ := strings.Cut(loc, "'")
	switch part {
	case "body", "query", "header", "path", "cookie":
		return true
	}
	return false
}

package wire

import (
	"net/http"

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
// chat_formatter_to_chat_completion_handler). openai-go sends a 500
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
	return says(e.Message, llamaCppPythonRequestErrors)
}

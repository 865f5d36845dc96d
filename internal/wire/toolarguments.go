package wire

import (
	"net/http"
	"strings"
)

// A tool call in the request's history whose arguments are not JSON.
//
// A caller sends back the model's tool calls with the next turn, and a
// call the model left cut (at max_tokens) or wrote badly keeps arguments
// that are not JSON. llama.cpp's server parses a call's arguments into an
// object for a chat template that takes them so (common/chat.cpp,
// workaround::func_args_not_string), and a text nlohmann::json cannot
// parse is thrown as std::runtime_error "Failed to parse tool call
// arguments as JSON: " and the parser's words, which its exception handler
// answers 500 "server_error" (tools/server/server.cpp, ex_wrapper), in
// 2025 builds and in master of September 2026 alike
// (ggml-org/llama.cpp#25510, open; #25583, a 400 in its place, not
// merged). Every later turn replays the same history and gets the same
// answer from a server that is well; sent again by openai-go and counted
// by a breaker, it opens the breaker of a healthy route. LlamaCppRequestError
// tells it from llama-server by its Server header; a reverse proxy in
// front of it passes its status and body on under a Server header of its
// own (nginx does not pass the upstream's: ngx_http_proxy_module,
// proxy_hide_header), so the refusal is told by its words alone too:
// llama.cpp's, then the parser's, which begin "[json.exception.parse_error"
// or, in builds whose parser leaves out its id, "parse error at line".

// toolArgumentsNotJSON is what llama.cpp's server writes before the JSON
// parser's words when a tool call's arguments in the request's history
// are not JSON.
const toolArgumentsNotJSON = "Failed to parse tool call arguments as JSON: "

// ToolArgumentsRefused reports whether res is llama.cpp's server's
// refusal of a request whose history holds a tool call with arguments
// that are not JSON, answered with 500 by it ("server_error") or by a
// server that passed its answer on or wrapped it in its own error (see
// refusalMessage). It reads the body, bounded already (BoundErrorBody),
// and puts it back.
func ToolArgumentsRefused(res *http.Response) bool {
	msg, ok := refusalMessage(res)
	if !ok {
		return false
	}
	_, parser, ok := strings.Cut(msg, toolArgumentsNotJSON)
	return ok && (strings.HasPrefix(parser, "[json.exception.parse_error") || strings.HasPrefix(parser, "parse error at line "))
}

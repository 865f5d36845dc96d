package wire

import (
	"net/http"
	"strings"
)

// A model's chat template refuses messages it cannot render by calling
// raise_exception: a system message after the first, roles that do not
// alternate, a tool message after no call, a reasoning effort it does not
// know. llama.cpp's server answers the refusal as any other exception,
// 500 "server_error" (tools/server/server.cpp, ex_wrapper: only
// std::invalid_argument is a 400), though the same messages are refused
// the same way every time. Its message says which template call raised,
// in one of the two forms of llama.cpp's template engines:
//   - its own engine (common/jinja, 2026): the template's words after
//     "Jinja Exception: " (common/jinja/value.cpp, global_builtins), which
//     nothing but raise_exception writes, below the place where it raised
//     (common/jinja/runtime.cpp, statement::execute);
//   - minja before it (google/minja, include/minja/minja.hpp): the
//     template's words alone, then for each template node around the call
//     " at row R, column C:" and the template's lines there, the line
//     that raised right above a caret line (error_location_suffix).
//     The words alone cannot tell a refusal from the template's own
//     failure (a filter it lacks), so the line the caret points at must
//     be the raise_exception call.
//
// Paddler (intentee/paddler), a load balancer over llama.cpp agents that
// render the template themselves with minijinja, gives templates its own
// raise_exception, whose error says "Model's chat template raised an
// exception: '<the template's words>'" (paddler_agent/src/chat_template_renderer/raise_exception.rs);
// its agent passes the render's failure on as a ChatTemplateError
// (paddler_agent/src/prepare_conversation_history_request.rs), which the
// balancer answers 500 "server_error", or inside its 200 stream once the
// stream has begun (paddler_balancer/src/compatibility/openai_service/openai_error.rs).
//
// A template that fails on its own stays the server's failure.
//
// Servers that run llama-server underneath pass the refusal on whole:
// Ollama's runner of a model on its llama-server engine returns
// llama-server's body as a StatusError of its status (ollama/ollama
// llm/llama_server.go, ApplyChatTemplate and statusErrorMessage), which
// the chat handler answers with that status (server/routes.go,
// "chat template prompt error") and its OpenAI layer as the message of an
// "api_error" (middleware/openai.go, BaseWriter.writeError); the client
// reads that body in the message as the error body (see bodyInMessage),
// so the refusal is told by its message whatever server sent it.

// ChatTemplateRefusal reports whether res is a chat template's refusal of
// the request's messages (see TemplateRefused) answered with 500, by
// llama.cpp's server ("server_error") or by a server that passed its
// answer on or wrapped it in its own error (see refusalMessage). It reads
// the body, bounded already (BoundErrorBody), and puts it back.
func ChatTemplateRefusal(res *http.Response) bool {
	msg, ok := refusalMessage(res)
	return ok && TemplateRefused(msg)
}

// jinjaException is what llama.cpp's own template engine writes before the
// words a template passes to raise_exception.
const jinjaException = "Jinja Exception: "

// paddlerRaised is what Paddler's raise_exception writes before the words
// a template passes to it.
const paddlerRaised = "Model's chat template raised an exception: '"

// TemplateRefused reports whether msg, a 500's message from llama.cpp's
// server or a message that holds one, is a chat template's refusal by
// raise_exception.
func TemplateRefused(msg string) bool {
	if strings.Contains(msg, jinjaException) || strings.Contains(msg, paddlerRaised) {
		return true
	}
	i := strings.Index(msg, " at row ")
	if i < 0 {
		return false
	}
	// The first location's lines: the one that raised is the one above
	// the first line that holds nothing but a caret.
	prev := ""
	for line := range strings.SplitSeq(msg[i:], "\n") {
		if strings.TrimSpace(line) == "^" {
			return strings.Contains(prev, "raise_exception(")
		}
		prev = line
	}
	return false
}

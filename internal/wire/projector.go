package wire

import (
	"net/http"
	"strings"
)

// An image, or audio, for a model served without its projector.
//
// llama.cpp's server refuses an image_url (or input_audio) part when it
// was started without the model's multimodal projector (--mmproj): its
// OpenAI parameter parsing throws std::runtime_error "image input is not
// supported - hint: if this is unexpected, you may need to provide the
// mmproj", which its exception handler answers 500 "server_error"
// (ggml-org/llama.cpp tools/server/server-common.cpp,
// oaicompat_chat_params_parse; tools/server/server.cpp, ex_wrapper). The
// same request is refused the same way every time, by a server that is
// well. LlamaCppRequestError tells it from llama-server itself, by its
// Server header; servers that run llama-server underneath pass it on
// without that header: Ollama's llama-server engine runs a model without
// vision with no projector, hands it the caller's image all the same
// (ollama/ollama server/prompt.go, imageTaggedMessages;
// llm/llama_server.go, llamaServerChatMediaPart), and answers llama-server's
// 500 body as the text of an "api_error" of its own (llm/llama_server.go,
// Chat and statusErrorMessage; server/routes.go, handleNativeChat;
// middleware/openai.go, BaseWriter.writeError), which the client reads as
// the error body (see bodyInMessage). The hint's words are llama.cpp's
// alone, so the refusal is told by them whatever server sent it, as a
// chat template's refusal is (see ChatTemplateRefusal).

// projectorHint is what llama.cpp's server writes after the kind of input
// (image, audio) a model served without its projector cannot take.
const projectorHint = " input is not supported - hint: if this is unexpected, you may need to provide the mmproj"

// ProjectorMissing reports whether res is llama.cpp's server's refusal of
// an image or audio for a model served without its projector, answered
// with 500 by it ("server_error") or by a server that passed its answer on
// or wrapped it in its own error (see refusalMessage). It reads the body,
// bounded already (BoundErrorBody), and puts it back.
func ProjectorMissing(res *http.Response) bool {
	msg, ok := refusalMessage(res)
	return ok && strings.Contains(msg, projectorHint)
}

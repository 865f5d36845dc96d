package wire

import "net/http"

// llama.cpp's refusals wrapped in a gateway's own error.
//
// Three of llama.cpp's request refusals under 500 are told by their words
// alone: a chat template's (TemplateRefused), an image or audio for a
// model served without its projector (ProjectorMissing) and a tool call's
// arguments that are not JSON in the history (ToolArgumentsRefused). The
// words are llama.cpp's own and long enough that no server failure's
// message holds them. A gateway that wraps its upstream's error in one of
// its own keeps the words and the status, not the error's type. LiteLLM's
// proxy raises an OpenAI-compatible upstream's 500 as its
// InternalServerError, whose message is "litellm.InternalServerError:
// InternalServerError: <Provider>Exception - " and the upstream's message
// (BerriAI/litellm litellm/litellm_core_utils/exception_mapping_utils.py,
// _map_openai_exception; litellm/exceptions.py), its router's ". Received
// Model Group=<group>\nAvailable Model Group Fallbacks=<fallbacks>" after
// them, and answers it 500 with {"error": {"message": …, "type": null,
// "param": null, "code": "500"}}: the exception carries no body, so no
// type (litellm/proxy/common_request_processing.py,
// _handle_llm_api_exception; litellm/proxy/_types.py, ProxyException).
// A client read llama-server's refusal of a tool call's arguments so
// (vxcontrol/pentagi#313), sent three times and the same each time. The
// three refusals are therefore told under 500 whatever the error's type;
// a gateway's own failures, and an upstream's failures it wraps, hold
// none of these words and stay the server's.

// refusalMessage returns the message of the error object of res, an
// answer of 500 whose body BoundErrorBody bounded already, whatever the
// error's type: "server_error" from llama.cpp's server, none from LiteLLM's
// wrapper. It puts the body back; ok is false for another status, no body,
// or a body that is no error object.
func refusalMessage(res *http.Response) (msg string, ok bool) {
	e, ok := errorOf(res, http.StatusInternalServerError)
	return e.Message, ok
}

package wire

import (
	"net/http"
	"strings"
)

// RTP-LLM's refusals of a request answered with 500.
//
// RTP-LLM's frontend (alibaba/rtp-llm rtp_llm/frontend/frontend_server.py,
// _handle_exception) answers every exception raised before a stream
// begins with 500 and its own shape, {"error_code": N, "error_code_str":
// "N_NAME", "message": …} (rtp_llm/server/misc.py, format_exception),
// its refusals of the request among them: a tool_choice its renderer
// does not take (INVALID_PARAMS, rtp_llm/openai/renderers/
// custom_renderer.py, apply_chat_completion_constraints), structured
// output asked in extra_configs (ERROR_INPUT_FORMAT_ERROR,
// rtp_llm/openai/openai_endpoint.py, _extract_generation_config). Sent
// again, such a request gets the same answer; counted by a breaker, a few
// open it on a server that is well. The code tells them
// (RTPLLMRequestFault).

// rtpLLMRequestFaults are RTP-LLM's error codes of the categories that
// name the request's fault, BAD_REQUEST, TOO_LONG and UNSUPPORTED
// (rtp_llm/config/exceptions.py, ExceptionType, as of August 2026): a
// malformed input or generate config, no or an empty prompt, a prompt
// too long for the model or its KV cache, an operation or a multimodal
// input it does not support, invalid parameters.
var rtpLLMRequestFaults = map[string]bool{
	"507": true, "509": true, "510": true, "511": true, "515": true, "604": true, "605": true,
	"607": true, "8406": true, "901": true, "902": true, "905": true,
}

// RTPLLMRequestFault reports whether code and name, an error's code and
// the error_code_str beside it ("511_LONG_PROMPT_ERROR"), are RTP-LLM's
// refusal of the request (see rtpLLMRequestFaults): the name must begin
// with the code, as RTP-LLM writes it.
func RTPLLMRequestFault(code, name string) bool {
	return rtpLLMRequestFaults[code] && strings.HasPrefix(name, code+"_")
}

// RTPLLMRequestError reports whether res is a request error that RTP-LLM
// answered with 500, as BoundErrorBody made its body: an error object
// whose type is RTP-LLM's error_code_str, of one of its request faults.
// It reads the body, bounded already, only under 500, and puts it back.
func RTPLLMRequestError(res *http.Response) bool {
	e, ok := errorOf(res, http.StatusInternalServerError)
	if !ok {
		return false
	}
	code, _, _ := strings.Cut(e.Type, "_")
	return RTPLLMRequestFault(code, e.Type)
}

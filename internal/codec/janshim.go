package codec

import (
	"strings"

	"github.com/openai/openai-go/v3/responses"
)

// Jan's Responses shim over a cut chat stream.
//
// Jan's local API server answers /v1/responses for its llama.cpp backends
// through a shim over their chat stream (janhq/jan,
// src-tauri/src/core/server/responses_shim.rs, responses_request_to_chat
// and ResponsesStreamConverter; proxy.rs, the /responses branch). The
// shim always asks the backend for the usage chunk (stream_options
// include_usage), and closes the answer with response.completed, status
// "completed", whatever ended the chat stream: its [DONE], or the end of
// a body cut short (a backend killed, its read failed). A whole answer's
// response.completed carries the usage llama-server sends before [DONE];
// a cut one's has usage null. Its response object is response_envelope's
// alone: no created_at, tool_choice "auto", tools [], and an id "resp_"
// and 32 hex digits.

// janShimCut reports whether res, the response of a response.completed
// event, is Jan's shim closing a chat stream cut short: status
// "completed", usage null, no created_at, tool_choice "auto", tools [],
// and an id of "resp_" and 32 hex digits.
func janShimCut(res *responses.Response) bool {
	if res.Status != responses.ResponseStatusCompleted || res.JSON.Usage.Raw() != "null" || res.JSON.CreatedAt.Raw() != "" {
		return false
	}
	if res.JSON.ToolChoice.Raw() != `"auto"` || res.JSON.Tools.Raw() != "[]" {
		return false
	}
	hex, ok := strings.CutPrefix(res.ID, "resp_")
	return ok && len(hex) == 32 && strings.Trim(hex, "0123456789abcdef") == ""
}

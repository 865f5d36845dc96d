package wire

import (
	"net/http"

	"github.com/tidwall/gjson"
)

// ScaleLLM's server errors answered with 400.
//
// ScaleLLM's OpenAI server (vectorch-ai/ScaleLLM, scalellm/serve) turns
// every failed status of its engine into a ValidationError
// (scalellm/llm_engine.py, OutputAsyncStream.put), which it answers with
// 400 and {"error": {"message": …, "code": N}}, N the engine's StatusCode
// (src/request/status.h): api_server.py's exception handler for a call
// that does not stream, and streaming_response.py's SafeStreamingResponse,
// which holds a stream's status until its first chunk, for one that does.
// The engine's own failures come so too: its scheduler full ("No
// available resources to schedule request", RESOURCE_EXHAUSTED, from
// src/handlers/llm_handler.cpp, LLMHandler::schedule), a deadline, an
// unknown error, the service unavailable. openai-go does not send a 400
// again, a breaker does not count it, and a Router hands it to its
// caller as the request's fault, when another route would answer it.

// scaleLLMServerCodes are the codes of ScaleLLM's StatusCode that name a
// failure of the server's: UNKNOWN, DEADLINE_EXCEEDED,
// RESOURCE_EXHAUSTED, UNAVAILABLE. INVALID_ARGUMENT (3) is the request's.
var scaleLLMServerCodes = map[int64]bool{2: true, 4: true, 5: true, 7: true}

// ScaleLLMServerError reports whether res is ScaleLLM's answer of a
// server failure under status 400: an error object of exactly a message
// and a numeric code, the code one of scaleLLMServerCodes. It reads the
// body, bounded already (BoundErrorBody), only under 400, and puts it
// back.
func ScaleLLMServerError(res *http.Response) bool {
	if res == nil || res.Body == nil || res.StatusCode != http.StatusBadRequest {
		return false
	}
	body, err := ErrorBody(res)
	if err != nil {
		return false
	}
	e := gjson.GetBytes(body, "error")
	code, msg := e.Get("code"), e.Get("message")
	members := 0
	e.ForEach(func(_, _ gjson.Result) bool { members++; return true })
	return e.IsObject() && members == 2 && msg.Type == gjson.String && code.Type == gjson.Number &&
		code.Num == float64(code.Int()) && scaleLLMServerCodes[code.Int()]
}

package codec

import (
	"github.com/openai/openai-go/v3/responses"
)

// incompleteError returns the error of ev, a final Responses event, when
// it is response.incomplete whose response names an error: the API sends
// an error only with a failed response, and ends an incomplete one for
// max_output_tokens or content_filter, the error null. Antigravity Tools
// (lbjlaq/Antigravity-Manager src-tauri/src/proxy/mappers/openai/streaming.rs,
// create_codex_sse_stream) ends a Responses stream whose Gemini upstream
// was lost, or ended with no finishReason, with response.incomplete of
// reason "interrupted" and error {code "upstream_interrupted"}, after it
// closed the message item as "completed" with the text so far; with no
// answer at all, the error's code is "empty_response". Read as an
// incomplete answer, the cut would be taken for a whole one of finish
// "interrupted", which a Router would not continue. nil for any other
// event; only a final event pays the look.
func incompleteError(ev *responses.ResponseStreamEventUnion) *ServerError {
	if ev.Type != RespIncomplete {
		return nil
	}
	e := ev.Response.Error
	if e.Code == "" && e.Message == "" {
		return nil
	}
	return &ServerError{Code: string(e.Code), Message: e.Message}
}

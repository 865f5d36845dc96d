package codec

import (
	"github.com/openai/openai-go/v3/responses"
)

// incompleteError returns the error of ev, a final Responses event, when
// it is response.incomplete whose response names an error for a cut of
// no reason the API gives: the API sends an error only with a failed
// response, and ends an incomplete one for max_output_tokens,
// max_messages, content_filter or steered, the error null (openai-go v3
// responses.ResponseIncompleteDetails). Antigravity Tools
// (lbjlaq/Antigravity-Manager src-tauri/src/proxy/mappers/openai/streaming.rs,
// create_codex_sse_stream) ends a Responses stream whose Gemini upstream
// was lost, or ended with no finishReason, with response.incomplete of
// reason "interrupted" and error {code "upstream_interrupted"}, after it
// closed the message item as "completed" with the text so far; with no
// answer at all, the error's code is "empty_response". Read as an
// incomplete answer, the cut would be taken for a whole one of finish
// "interrupted", which a Router would not continue. The same bridge
// writes "empty_response" beside the API's own reasons too, when Gemini
// stopped for MAX_TOKENS (a thinking model that spent the limit on its
// thoughts) or for SAFETY before any text: those stay the cut their
// reason says, the caller's limit or a policy's refusal, not the
// server's failure. nil for any other event; only a final event pays
// the look.
func incompleteError(ev *responses.ResponseStreamEventUnion) *ServerError {
	if ev.Type != RespIncomplete {
		return nil
	}
	switch ev.Response.IncompleteDetails.Reason {
	case "max_output_tokens", "max_messages", "content_filter", "steered":
		return nil
	}
	e := ev.Response.Error
	if e.Code == "" && e.Message == "" {
		return nil
	}
	return &ServerError{Code: string(e.Code), Message: e.Message}
}

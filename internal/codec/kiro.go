package codec

import (
	"github.com/openai/openai-go/v3/packages/respjson"
	"github.com/tidwall/gjson"
)

// kiroContentLength returns the error of data, an event of no choices,
// when it is the refusal kiro2api (a bridge that serves Kiro's
// CodeWhisperer subscription as /v1/chat/completions) sends for an input
// over CodeWhisperer's limit: its event-stream headers are set before
// CodeWhisperer is asked, and CodeWhisperer's 400 of reason
// CONTENT_LENGTH_EXCEEDS_THRESHOLD is mapped to Anthropic's message_delta,
// stop_reason "max_tokens" and a usage of zeros, sent through its
// Anthropic sender on the OpenAI route as the body's only event
// (caidaoli/kiro2api server/error_mapper.go, ContentLengthExceedsStrategy
// and sendMaxTokensResponse; server/common.go, handleCodeWhispererError).
// Read as an event without output, it was a cut stream, the server's
// failure; it is the request's input over the route's limit, so its code
// is context_length_exceeded. Only an event of no choices with a "type"
// member pays for the look.
func kiroContentLength(data []byte, extra map[string]respjson.Field, choices int) *ServerError {
	if choices != 0 {
		return nil
	}
	if _, ok := extra["type"]; !ok {
		return nil
	}
	r := gjson.GetManyBytes(data, "type", "delta.stop_reason", "usage.input_tokens", "usage.output_tokens")
	if r[0].Str != "message_delta" || r[1].Str != "max_tokens" || r[2].Raw != "0" || r[3].Raw != "0" {
		return nil
	}
	return &ServerError{Code: "context_length_exceeded", Message: "Content length exceeds threshold", Type: "invalid_request_error"}
}

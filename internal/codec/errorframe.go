package codec

import (
	"strconv"

	"github.com/openai/openai-go/v3/packages/respjson"
	"github.com/tidwall/gjson"
)

// errorTypeFrame returns the error of an event without choices whose
// extra fields are a string "error_type" and a string "error_message":
// DeepInfra's OpenAI-compatible API sends a refusal inside its 200 event
// stream so, the message a JSON text of an OpenAI error object
// ({"error":{"message":…}}), the type naming the failure, e.g.
// "validation_error" (vercel/ai packages/deepinfra/src/deepinfra-chat-error.ts,
// deepInfraNativeErrorSchema, and its completions test). The error is
// that object, or the message itself when it is no such text, typed
// error_type (see typeStatus); nil for any other event.
func errorTypeFrame(extra map[string]respjson.Field, choices int) *ServerError {
	if choices > 0 || len(extra) == 0 {
		return nil
	}
	t, m := gjson.Parse(extra["error_type"].Raw()), gjson.Parse(extra["error_message"].Raw())
	if t.Type != gjson.String || m.Type != gjson.String || m.Str == "" {
		return nil
	}
	if inner := gjson.Get(m.Str, "error"); inner.IsObject() && inner.Get("message").Type == gjson.String {
		return &ServerError{Raw: inner.Raw, Type: t.Str}
	}
	return &ServerError{Raw: strconv.Quote(m.Str), Type: t.Str}
}

package codec

import (
	"github.com/openai/openai-go/v3/packages/respjson"
	"github.com/tidwall/gjson"
)

// contentError returns the error of an event without choices whose extra
// fields are a failure status, a number "status_code" of 400 to 599, and
// an error object, with a string "message", in "content": Cerebras's
// streamed error chunk (Cerebras/cerebras-cloud-sdk-python
// types/chat/completion_create_response.py, ErrorChunkResponse: status_code
// beside content{code, message, param, type}, one of the shapes a streamed
// event may take). The error is that object; nil for any other event.
func contentError(extra map[string]respjson.Field, choices int) *ServerError {
	if choices > 0 {
		return nil
	}
	st, ok := extra["status_code"]
	if !ok {
		return nil
	}
	code := gjson.Parse(st.Raw())
	if code.Type != gjson.Number || code.Num < 400 || code.Num > 599 {
		return nil
	}
	content := gjson.Parse(extra["content"].Raw())
	if !content.IsObject() || content.Get("message").Type != gjson.String {
		return nil
	}
	return &ServerError{Raw: content.Raw}
}

package codec

import "github.com/tidwall/gjson"

// ChatChunkLine reports whether line, the first line of a body that is no
// event stream, is a chat completion chunk: a JSON object whose object is
// "chat.completion.chunk", or, where the server leaves object out, whose
// first choice holds a delta. A whole chat completion (a message, not a
// delta), an error body or an HTML page is not.
func ChatChunkLine(line []byte) bool {
	if !gjson.ValidBytes(line) {
		return false
	}
	c := gjson.ParseBytes(line)
	if !c.IsObject() {
		return false
	}
	if o := c.Get("object"); o.Exists() {
		return o.String() == "chat.completion.chunk"
	}
	return c.Get("choices.0.delta").IsObject()
}

package codec

import (
	"bytes"
	"unicode/utf8"

	"github.com/tokenpace/tokenpace/internal/sse"
)

// unescapedError returns the message of data, an event's data that is not
// JSON, when it is an error object whose message string was written
// unescaped: `{"error": "` and the message, then `"}` or nothing, the
// data having been cut at the message's first line break. Hugging Face's
// transformers serve writes an exception so, with an f-string
// (src/transformers/cli/serving/chat_completion.py, _streaming: data:
// {"error": "{text.msg}"}): a message with a line break, as PyTorch's
// device-side assert has, ends the data line there, and one with a
// double quote is not JSON either.
func unescapedError(data []byte) (string, bool) {
	t := bytes.TrimSpace(data)
	if len(t) > sse.MaxText+16 || !utf8.Valid(t) {
		return "", false
	}
	for _, part := range []string{`{`, `"error"`, `:`, `"`} {
		rest, ok := bytes.CutPrefix(t, []byte(part))
		if !ok {
			return "", false
		}
		t = bytes.TrimLeft(rest, " ")
	}
	if s, ok := bytes.CutSuffix(t, []byte(`"}`)); ok {
		t = s
	}
	return sse.Text(t)
}

package sse

import (
	"bytes"
	"encoding/json"
	"unicode"
	"unicode/utf8"
)

// MaxText bounds the line that Text reads as a message.
const MaxText = 1 << 10

// Text returns data, its white space trimmed, as a message when it is a
// line of text: at most MaxText bytes of UTF-8 with no line break, that
// begin with a letter and are no JSON. A JSON value cut short, a number,
// true or null, binary bytes and a page of markup are not: a server's
// words for a failure are none of these (one-hub's "unexpected EOF" as an
// event's data, xLLM's "Prompt is too long" as a bare last line; see
// ErrorLine).
func Text(data []byte) (string, bool) {
	t := bytes.TrimSpace(data)
	if !isText(t) {
		return "", false
	}
	return string(t), true
}

// isText reports whether t, trimmed of white space, is a line of text
// (see Text).
func isText(t []byte) bool {
	if len(t) == 0 || len(t) > MaxText || !utf8.Valid(t) || bytes.ContainsAny(t, "\r\n") {
		return false
	}
	r, _ := utf8.DecodeRune(t)
	return unicode.IsLetter(r) && !json.Valid(t)
}

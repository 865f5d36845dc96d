package codec

import "bytes"

// A character outside Unicode's Basic Multilingual Plane (most emoji, a
// few CJK characters) split between two events as two JSON escapes.
//
// JSON writes such a character as one escape or as two, a UTF-16
// surrogate pair ("\ud83d\ude00"). A server in JavaScript holds text as
// UTF-16 code units, and one that cuts it by their count (String's slice
// or substring, a regular expression without the u flag) may cut a pair
// in two; JSON.stringify then writes each half as an escape of its own,
// a lone surrogate (ECMA-262's well-formed JSON.stringify, since
// ES2019). xjuunn/web-model-api-gateway streams a whole answer in pieces
// of 80 code units (src/modules/openai/compat.ts, chunkText, at 870a5a8)
// and, since its move to the AI SDK, of 48 (src/gateway/models/
// webGeminiLanguageModel.ts, doStream): an emoji across a cut ends one
// event's text with "\ud83d" and begins the next one's with "\ude00".
// encoding/json and openai-go's decoder make each lone half U+FFFD, so
// the caller read "��" in the chunks, Text() and Accumulated(), where the
// server had sent the emoji whole across the two.

// surrogateJoin puts back together, in the events of one stream, a
// surrogate pair split between two of them: a string that ends with a
// high surrogate's escape has it taken off and held, and the next string
// that begins with a low surrogate's escape, in a later event, gets it
// back before its own. The text then reaches the caller whole, in the
// second event. The zero value holds nothing.
//
// It holds one escape: of several strings of one event that end with a
// high surrogate (an answer of several choices), the last one's is held
// and the others are left as they are (U+FFFD, as before). A held high
// surrogate that no low one follows is dropped at the end of the stream,
// where it was U+FFFD before: either way the server's text had a lone
// half there. An event with no "\u" in it is returned as it is, after
// one search of its bytes.
type surrogateJoin struct {
	held [6]byte // the escape held back, as the server wrote it
	has  bool
}

// escapeU is how every JSON \u escape begins.
var escapeU = []byte(`\u`)

// join returns data, an event's JSON, with a surrogate pair split
// between it and the events before it put back together (see
// surrogateJoin). It returns data itself unless it changes it.
func (j *surrogateJoin) join(data []byte) []byte {
	at := bytes.Index(data, escapeU)
	if at < 0 {
		return data
	}
	low, high := -1, -1 // the escape that begins a string, the one that ends a string
	for i := at; i >= 0; {
		if escaped(data, i) {
			switch surrogate(data[i+2:]) {
			case 'l':
				if low < 0 && j.has && i > 0 && data[i-1] == '"' && !escaped(data, i-2) {
					low = i
				}
			case 'h':
				if i+6 < len(data) && data[i+6] == '"' {
					high = i
				}
			}
		}
		next := bytes.Index(data[i+2:], escapeU)
		if next < 0 {
			break
		}
		i += 2 + next
	}
	if low < 0 && high < 0 {
		return data
	}
	out := make([]byte, 0, len(data)+len(j.held))
	held := j.held
	if high >= 0 {
		copy(j.held[:], data[high:high+6])
	}
	j.has = high >= 0
	for i := 0; i < len(data); {
		switch i {
		case low:
			out = append(out, held[:]...)
		case high:
			i += 6
			continue
		}
		end := len(data)
		for _, k := range []int{low, high} {
			if k > i && k < end {
				end = k
			}
		}
		out = append(out, data[i:end]...)
		i = end
	}
	return out
}

// escaped reports whether the byte of data at i is a backslash that
// begins an escape: one preceded by an even number of backslashes. i may
// be out of data's range, which holds none.
func escaped(data []byte, i int) bool {
	if i < 0 || i >= len(data) || data[i] != '\\' {
		return false
	}
	n := 0
	for k := i - 1; k >= 0 && data[k] == '\\'; k-- {
		n++
	}
	return n%2 == 0
}

// surrogate returns 'h' when hex, the four digits after a \u, is a high
// surrogate (D800 to DBFF), 'l' when a low one (DC00 to DFFF), else 0.
func surrogate(hex []byte) byte {
	if len(hex) < 4 || hex[0]|0x20 != 'd' || !isHex(hex[2]) || !isHex(hex[3]) {
		return 0
	}
	switch hex[1] | 0x20 {
	case '8', '9', 'a', 'b':
		return 'h'
	case 'c', 'd', 'e', 'f':
		return 'l'
	}
	return 0
}

// isHex reports whether c is a hexadecimal digit.
func isHex(c byte) bool {
	c |= 0x20
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f'
}

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
// of the same place in a later event (the same key, its same rank among
// the event's strings of that key, and the same first index, a choice's
// or an output's, and the same index nearest before the string, a tool
// call's or a content part's) gets it back before its own text. When that string
// begins with the low surrogate, the character reaches the caller whole,
// in the second event; when it does not, the lone half reaches it there
// as U+FFFD, as it did before, and no text moves before it. Events
// between, with no string of that place (a role, another choice, a
// finish), are left as they are.
//
// It holds up to maxHeld escapes, one a place, and looks for the place
// of up to maxTries strings of an event; a string whose place is
// unknown (an array's element, a key of more than keyMax bytes or with
// an escape) or beyond that count is left as it was (U+FFFD). A held
// escape that no later string of its place takes is dropped at the end
// of the stream, where it was U+FFFD before: either way the server's
// text had a lone half there, and no event is left to carry it. An event
// with no "\u" in it, while nothing is held, is returned as it is after
// one search of its bytes. The zero value holds nothing.
type surrogateJoin struct {
	held [maxHeld]heldHalf
	n    int // held[:n] are held
}

const (
	maxHeld  = 4  // escapes held at once
	keyMax   = 34 // the longest key a held string may have, its quotes counted
	indexMax = 8  // the longest index that tells a held string's place
	// maxTries bounds the strings of one event whose place is looked for
	// (each look reads the event up to the string): an event of many
	// strings ending with a high surrogate costs a few reads of its bytes,
	// not one per string.
	maxTries = 2 * maxHeld
)

// heldHalf is a high surrogate's escape held back, and the place of the
// string it ended (see surrogateJoin).
type heldHalf struct {
	esc   [6]byte      // the escape, as the server wrote it
	key   [keyMax]byte // the string's key, its quotes included
	klen  uint8
	nth   uint8 // the string's rank among the event's strings of that key
	index [indexMax]byte
	ilen  uint8
	near  [indexMax]byte // the index nearest before the string
	nlen  uint8
}

// escapeU is how every JSON \u escape begins.
var escapeU = []byte(`\u`)

// spliced is one change join makes to an event: the held escape put in
// before data[at], or, with del, the 6 bytes at data[at] taken out.
type spliced struct {
	at  int
	del bool
	esc [6]byte
}

// join returns data, an event's JSON, with a surrogate pair split
// between it and the events before it put back together (see
// surrogateJoin). It returns data itself unless it changes it.
func (j *surrogateJoin) join(data []byte) []byte {
	first := bytes.Index(data, escapeU)
	if first < 0 && j.n == 0 {
		return data
	}
	var edits [2 * maxHeld]spliced
	ne := 0
	var index []byte // placeIndex(data), found once needed
	indexed := false
	if j.n > 0 {
		index, indexed = placeIndex(data), true
	}
	kept := 0
	for k := range j.n {
		h := j.held[k]
		if bytes.Equal(h.index[:h.ilen], index) {
			if at := nthString(data, h.key[:h.klen], int(h.nth)); at >= 0 && bytes.Equal(nearIndex(data, at), h.near[:h.nlen]) {
				edits[ne] = spliced{at: at, esc: h.esc}
				ne++
				continue
			}
		}
		j.held[kept] = h
		kept++
	}
	j.n = kept
	for i, tries := first, 0; i >= 0 && j.n < maxHeld && tries < maxTries; {
		if escaped(data, i) && surrogate(data[i+2:]) == 'h' && i+6 < len(data) && data[i+6] == '"' {
			if !indexed {
				index, indexed = placeIndex(data), true
			}
			tries++
			key, nth, ok := stringPlace(data, i)
			near := nearIndex(data, i)
			if ok && len(index) <= indexMax && len(near) <= indexMax && !j.holds(key, nth, index, near) {
				h := &j.held[j.n]
				j.n++
				h.nlen = uint8(copy(h.near[:], near))
				copy(h.esc[:], data[i:i+6])
				h.klen = uint8(copy(h.key[:], key))
				h.nth = uint8(nth)
				h.ilen = uint8(copy(h.index[:], index))
				edits[ne] = spliced{at: i, del: true}
				ne++
			}
		}
		next := bytes.Index(data[i+2:], escapeU)
		if next < 0 {
			break
		}
		i += 2 + next
	}
	if ne == 0 {
		return data
	}
	e := edits[:ne]
	for a := 1; a < len(e); a++ { // by position, an insertion before a deletion at the same byte
		for b := a; b > 0 && (e[b].at < e[b-1].at || e[b].at == e[b-1].at && !e[b].del && e[b-1].del); b-- {
			e[b], e[b-1] = e[b-1], e[b]
		}
	}
	out := make([]byte, 0, len(data)+6*ne)
	from := 0
	for _, s := range e {
		out = append(out, data[from:s.at]...)
		from = s.at
		if s.del {
			from += 6
		} else {
			out = append(out, s.esc[:]...)
		}
	}
	return append(out, data[from:]...)
}

// holds reports whether an escape of the string at this place is held.
func (j *surrogateJoin) holds(key []byte, nth int, index, near []byte) bool {
	for _, h := range j.held[:j.n] {
		if int(h.nth) == nth && bytes.Equal(h.key[:h.klen], key) && bytes.Equal(h.index[:h.ilen], index) && bytes.Equal(h.near[:h.nlen], near) {
			return true
		}
	}
	return false
}

// indexKey ends every key that gives a place's index: a choice's
// "index", a Responses event's "output_index".
var indexKey = []byte(`index"`)

// placeIndex returns the value of the first key of data that ends in
// "index" (a choice's, an output's), nil when it has none.
func placeIndex(data []byte) []byte {
	return indexAt(data, bytes.Index(data, indexKey))
}

// nearIndex returns the value of the last key of data before data[at]
// that ends in "index", nil when there is none.
func nearIndex(data []byte, at int) []byte {
	return indexAt(data, bytes.LastIndex(data[:at], indexKey))
}

// indexAt returns the number after the key that ends at data[at:] with
// indexKey, nil when at is -1 or no number follows.
func indexAt(data []byte, at int) []byte {
	if at < 0 {
		return nil
	}
	i := skipSpace(data, at+len(indexKey))
	if i >= len(data) || data[i] != ':' {
		return nil
	}
	i = skipSpace(data, i+1)
	end := i
	for end < len(data) && data[end] >= '0' && data[end] <= '9' {
		end++
	}
	return data[i:end]
}

// stringPlace returns the key (its quotes included) of the string of
// data in which the escape at i stands, and the string's rank among the
// strings of data with that key; ok is false when the string is no
// object member's or its key is too long or escaped.
func stringPlace(data []byte, i int) (key []byte, nth int, ok bool) {
	open := i - 1
	for open >= 0 && (data[open] != '"' || escaped(data, open-1)) {
		open--
	}
	k := skipSpaceBack(data, open-1)
	if k < 0 || data[k] != ':' {
		return nil, 0, false
	}
	end := skipSpaceBack(data, k-1)
	if end < 0 || data[end] != '"' {
		return nil, 0, false
	}
	start := end - 1
	for start >= 0 && data[start] != '"' && data[start] != '\\' {
		start--
	}
	if start < 0 || data[start] != '"' || end+1-start > keyMax {
		return nil, 0, false
	}
	key = data[start : end+1]
	for from := 0; ; nth++ {
		at, next := keyedString(data, key, from)
		if at < 0 || next > start+len(key) {
			return nil, 0, false
		}
		if next == start+len(key) {
			return key, nth, nth < 256
		}
		from = at
	}
}

// nthString returns where the text of the nth string of data with key
// begins (just after its opening quote), -1 when data has no such string.
func nthString(data, key []byte, nth int) int {
	for from := 0; ; nth-- {
		at, _ := keyedString(data, key, from)
		if at < 0 || nth == 0 {
			return at
		}
		from = at
	}
}

// keyedString finds, from data[from:] on, key (its quotes included)
// followed by a colon and a string: it returns where the string's text
// begins and the offset just past the key, or -1.
func keyedString(data, key []byte, from int) (at, next int) {
	for from < len(data) {
		k := bytes.Index(data[from:], key)
		if k < 0 {
			return -1, -1
		}
		k += from
		next = k + len(key)
		from = next
		if escaped(data, k-1) {
			continue
		}
		i := skipSpace(data, next)
		if i >= len(data) || data[i] != ':' {
			continue
		}
		i = skipSpace(data, i+1)
		if i < len(data) && data[i] == '"' {
			return i + 1, next
		}
	}
	return -1, -1
}

// skipSpace returns the first index from i on of a byte of data that is
// not JSON white space.
func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// skipSpaceBack returns the last index from i back of a byte of data
// that is not JSON white space, -1 when there is none.
func skipSpaceBack(data []byte, i int) int {
	for i >= 0 && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i--
	}
	return i
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
	// Only a letter is folded to lower case: a control byte folded so
	// (0x18 | 0x20 is '8') would pass for a digit.
	c := hex[1]
	if c >= 'A' && c <= 'F' {
		c |= 0x20
	}
	switch c {
	case '8', '9', 'a', 'b':
		return 'h'
	case 'c', 'd', 'e', 'f':
		return 'l'
	}
	return 0
}

// isHex reports whether c is a hexadecimal digit.
func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'f'
}

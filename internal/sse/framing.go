package sse

import "bytes"

// framing is how a body separates its events, learnt from its first event
// and then fixed for the body.
type framing uint8

const (
	// framingUnknown: no event has told yet. A first data line that is
	// whole (see whole) is dispatched at once when the line after it has
	// not arrived with it (see follower), before that line says which
	// framing the body has.
	framingUnknown framing = iota
	// framingBlank: a blank line ends each event, as the format says; a
	// data line is never dispatched alone, and costs no check.
	framingBlank
	// framingLines: each data line is an event of its own, no blank line
	// between them. The api_like_OAI.py proxy that llama.cpp's server of
	// 2023 and its forks shipped as their OpenAI-compatible front
	// (SJTU-IPADS/PowerInfer examples/server/api_like_OAI.py, generate:
	// "data: " + json.dumps(chunk) + "\n") writes a stream so: the format
	// would join every chunk into one event of invalid JSON at the body's
	// end, and the whole answer would be lost.
	framingLines
)

// early reports whether the data line value is an event of its own, to
// dispatch at once: in a body whose framing is not yet known or is one
// line per event, a line whose data is whole ([DONE] or a JSON object) and
// that starts an event. While the framing is not known, a line that
// arrived with the next line is not, unless that line is data or a
// comment: a blank line after it then fixes the format's framing, and
// another field (event, id, retry) belongs to the same event, which the
// format ends at the blank line; an "event: error" after the data names it
// so. Only the line that arrived with it decides: one that comes in a
// later read finds the event dispatched, its name, if it was "error",
// lost. In a body of blank-line framing it costs one comparison.
func (r *Reader) early(value []byte) bool {
	if r.framing == framingBlank || r.has {
		return false
	}
	if r.framing == framingUnknown {
		switch r.follows {
		case followsField:
			return false
		case followsBlank:
			if whole(value) {
				r.framing = framingBlank
			}
			return false
		}
	}
	return whole(value)
}

// follower is what the line after a line is, as far as it arrived with it
// in the same read.
type follower uint8

const (
	// followsUnknown: the next line has not arrived whole, or is a comment,
	// which says nothing of the framing.
	followsUnknown follower = iota
	// followsBlank: a blank line.
	followsBlank
	// followsData: a data field.
	followsData
	// followsField: any other field.
	followsField
)

// following returns what rest, the bytes read after a line, begins with;
// cr says that line ended with a CR, after which a LF is the end of the
// same line break.
func following(rest []byte, cr bool) follower {
	if cr && len(rest) > 0 && rest[0] == '\n' {
		rest = rest[1:]
	}
	end, _ := lineEnd(rest)
	switch {
	case end < 0:
		return followsUnknown
	case end == 0:
		return followsBlank
	}
	name, _, _ := bytes.Cut(rest[:end], []byte{':'})
	switch {
	case len(name) == 0:
		return followsUnknown
	case string(name) == "data":
		return followsData
	}
	return followsField
}

// learn fixes the body's framing from the line after an event dispatched
// at its data line (see early): a blank line is the format's framing, a
// data line one line per event; any other field leaves it unknown. Only
// that line calls it.
func (r *Reader) learn(line []byte, name []byte) {
	r.dispatched = false
	switch {
	case r.framing != framingUnknown:
	case len(line) == 0:
		r.framing = framingBlank
	case string(name) == "data":
		r.framing = framingLines
	}
}

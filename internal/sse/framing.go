package sse

// framing is how a body separates its events, learnt from its first event
// and then fixed for the body.
type framing uint8

const (
	// framingUnknown: no event has told yet. A first data line that is
	// whole (see whole) is dispatched at once, before the line after it
	// says which framing the body has.
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
// that starts an event. In a body of blank-line framing it costs one
// comparison.
func (r *Reader) early(value []byte) bool {
	return r.framing != framingBlank && !r.has && whole(value)
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

package tokenpace

import "github.com/tokenpace/tokenpace/internal/codec"

// A whole completion in place of a stream.
//
// Shimmy (Michael-A-Kuykendall/shimmy, src/openai_compat/mod.rs,
// completions) never streams /v1/completions: a streamed request gets the
// whole completion as one line of JSON, labelled application/json. Read
// as an event stream, that line is no field of the format, and the answer
// was lost behind KindContentType though the server gave it whole.

// wholeInStream returns the event of a body that is no event stream (see
// sse.Reader.Sniff) when its first line is a whole completion (see
// codec.WholeCompletion) answering a completions request, and its
// memory; ok is false for any other body, which stays KindContentType.
func (r *reading) wholeInStream() (ev codec.Event, size int, ok bool) {
	if r.req.API() != codec.APICompletions {
		return ev, 0, false
	}
	ev, size, err := r.decode(r.sr.Unframed())
	return ev, size, err == nil && codec.WholeCompletion(ev)
}

package tokenpace

import "github.com/tokenpace/tokenpace/internal/codec"

// A chat stream sent as JSON lines.
//
// DJL Serving's LMI container streams chat as application/jsonlines, a
// bare chunk a line with no data field and no [DONE] (see
// sse.Reader.JSONLines): read as an event stream, the answer was lost
// behind KindContentType though every chunk arrived.

// jsonLines reports whether a body that is no event stream is a chat
// stream's JSON lines, its first line (sse.Reader.Unframed) a chat chunk
// answering a chat request (see codec.ChatChunkLine), and then reads the
// rest of the body so; any other body stays no event stream.
func (r *reading) jsonLines() bool {
	if r.req.API() != codec.APIChat || !codec.ChatChunkLine(r.sr.Unframed()) {
		return false
	}
	r.sr.JSONLines()
	return true
}

package codec

import "errors"

// An event cut short.
//
// Targon's hub (manifold-inc/targon-hub-api,
// api/internal/routes/query_models.go, QueryModels) relays the stream of
// its model's fallback server a line at a time, through a bufio.Scanner,
// each line written back with a blank line after it, and reads that body
// with an http.Client whose Timeout of two minutes runs over the reading
// of the body too. An answer still streaming at that point has its read
// ended; the Scanner returns the bytes the last read held as a last line,
// which is then framed as a whole event, and the loop ends without a word
// (ProcessOpenaiRequest answers 200 with nothing more): the caller's last
// event is the start of a chunk, its JSON open, and the body ends there.
// Such data is no server's malformed output but an answer cut mid-event:
// it is read as a cut answer (KindTruncated), the text before it kept.
// Data that is no JSON, or JSON with a wrong byte in it, stays malformed.

// eventCut is the Detail of the error of an event whose JSON ends before
// its value does.
const eventCut = "event cut short"

// cutShort reports whether data, an event's data that did not decode,
// is the start of a JSON value whose end is missing: the rule cutJSON
// reads a tool call's arguments by. It runs only on an event that failed
// to decode.
func cutShort(data []byte) bool { return cutJSON(string(data)) }

// IsEventCut reports whether err, a Decode error, is that of an event
// whose JSON ends before its value does (see cutShort). Such an event is
// a cut answer only if the body ends after it: its reader reads on once
// to see, and an event that follows makes it the server's malformed
// output (see MalformedCut).
func IsEventCut(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Truncated && e.Detail == eventCut
}

// MalformedCut returns err, an error IsEventCut reports, as the malformed
// event it is when the body went on after it: a server that writes a line
// break unescaped in an event's data splits it so, the rest of its JSON
// on a line the framing drops.
func MalformedCut(err error) error {
	var e *Error
	if !errors.As(err, &e) {
		return err
	}
	return &Error{Detail: "malformed event", Err: e.Err}
}

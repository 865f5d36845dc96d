package tokenpace

import "github.com/tokenpace/tokenpace/internal/codec"

// cutEvent returns the error of an event whose JSON ends before its value
// does (see codec.IsEventCut), err its Decode error. It reads the body
// on: the answer was cut mid-event, KindTruncated, if the body ends or
// fails there, as Targon's hub ends it (see the fixture
// targon-fallback-timeout-partial-event); if another event follows, the
// event was the server's malformed output (KindMalformed), as a line
// break written unescaped in a chunk's text splits it. Blank lines after
// it are no event.
func (a *attempt) cutEvent(err error) error {
	if _, nerr := a.rd.next(); nerr == nil {
		return a.refused(codec.MalformedCut(err))
	}
	return a.refused(err)
}

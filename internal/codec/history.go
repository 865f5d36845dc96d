package codec

import "encoding/json"

// History returns the JSON array of the messages of a chat request that
// come before its answer: all of them, or, for a continuation
// (continued), those before the output so far and the continue prompt
// that For appends. It is nil for a request of another API or with no
// such message. With the answer's content or first call, it tells one
// assistant turn from another of the same words (see wire.HistoryOf). It
// marshals the messages: call it once a turn, never per chunk.
func History(r Request, continued bool) []byte {
	if r == nil || r.API() != APIChat {
		return nil
	}
	msgs := r.View().Messages
	n := len(msgs)
	if continued {
		n -= 2
	}
	if n <= 0 {
		return nil
	}
	b, err := json.Marshal(msgs[:n])
	if err != nil {
		return nil
	}
	return b
}

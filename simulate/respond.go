package simulate

import (
	"strings"
	"time"
)

// responder turns a request's emissions into its response: chunks of
// per tokens, the role-only chunk, the finish, usage and [DONE] events, or
// the whole JSON body of a non-streaming request, with the mid-stream
// faults applied.
type responder struct {
	out      *output
	f        format
	fault    Fault
	text     *replyText // the whole reply
	finish   string     // its finish_reason
	stream   bool
	usage    usage // prompt tokens and cached tokens; completion counted here
	usageOn  bool  // stream_options.include_usage
	per      int   // tokens per chunk
	roleSent bool

	pos     int             // tokens emitted so far
	pending int             // tokens emitted but not yet sent
	chunks  int             // output-bearing chunks sent
	whole   strings.Builder // the text of a non-streaming response
	buf     []byte
}

// due reports whether e completes the chunk at which a mid-stream fault
// strikes.
func (r *responder) due(e Emission) bool {
	n := r.pending + min(e.Tokens, r.text.n-r.pos)
	return r.chunks == r.fault.After && n > 0 && (n >= r.per || e.Done)
}

// handle takes emission e, due at at, and sends what it completes. It
// reports whether the response is complete, and false ok when the client
// went away.
func (r *responder) handle(e Emission, at time.Time) (done, ok bool) {
	k := min(e.Tokens, r.text.n-r.pos)
	r.pos += k
	r.pending += k
	r.buf = r.buf[:0]
	if r.pending > 0 && (r.pending >= r.per || e.Done) {
		if r.chunks == r.fault.After {
			switch r.fault.Kind {
			case FaultStall:
				r.out.stallUntil = at.Add(r.fault.duration())
			case FaultMalformed:
				if r.stream && !r.out.send(at, []byte("data: {\"id\":\"malformed\",\"choices\":[{\"delta\":{\"content\":\n\n")) {
					return true, false
				}
			}
		}
		if !r.roleSent {
			r.buf = r.f.role(r.buf)
			r.roleSent = true
		}
		text := r.text.take(r.pending)
		r.pending = 0
		r.chunks++
		if r.stream {
			r.buf = r.f.token(r.buf, text)
		} else {
			r.whole.WriteString(text)
		}
	}
	if !e.Done {
		if len(r.buf) > 0 && r.stream {
			return false, r.out.send(at, r.buf)
		}
		return false, true
	}
	r.usage.completion = r.pos
	if !r.stream {
		body := r.f.whole(nil, r.whole.String(), r.finish, r.usage)
		if r.fault.Kind == FaultMalformed {
			body = body[:len(body)/2]
		}
		return true, r.out.whole(at, body)
	}
	r.buf = r.f.finish(r.buf, r.finish)
	if r.usageOn {
		r.buf = r.f.usage(r.buf, r.usage)
	}
	r.buf = append(r.buf, doneEvent...)
	return true, r.out.send(at, r.buf) && r.out.end(at)
}

package tokenpace

import (
	"time"

	"github.com/openai/openai-go/v3/responses"

	"github.com/tokenpace/tokenpace/internal/codec"
)

// Resuming a background response's stream.
//
// A Responses request in background mode (background true, store not
// false) leaves its response on the server, which keeps every event it
// streamed: GET /responses/{id}?stream=true&starting_after=N replays the
// events after sequence number N and goes on with the live ones (OpenAI's
// "Background mode" guide, "Resuming streams"). When such a stream breaks
// after its output reached the caller, a Router with Policy.Continue
// first resumes it at its own route: a continuation (AttemptContinuation,
// with the ResponseID of the try it resumes) whose events are the
// caller's response as they come, with no event repeated (an event the
// caller has is dropped) and no text generated again. The call resumes
// once, and never a response its server ended itself (an error event, a
// final event that stopped it short: see serverEnded); a resume that
// fails before its first token (a server without background mode answers
// the GET with 404 or 400) goes on as any continuation does, at the next
// route; one that ends cleanly before any
// token replayed only the closing events of a response whose output the
// caller has, and ends the call with them.

// canResume reports whether tr's stream, which broke after its output
// reached the caller, can be resumed: the call's first, a background
// response whose id is known, and none resumed yet. c.mu is held.
func (c *call) canResume(tr *try) bool {
	_, ok := c.resumeRequest(tr)
	return ok
}

// resumeRequest returns the request that resumes tr's stream after the
// last event of it that reaches the caller, and whether there is one: not
// for a response its server ended itself (see serverEnded). c.mu is held.
func (c *call) resumeRequest(tr *try) (codec.Request, bool) {
	if c.resumed || c.out.stitch == nil || !codec.Background(c.req) || !tr.chained || tr.a == nil ||
		len(c.out.tries) != 1 || c.out.tries[0] != tr {
		return nil, false
	}
	t := tr.a.timing()
	if serverEnded(t) {
		return nil, false
	}
	id := t.ResponseID
	last, ok := tr.a.lastWaiting()
	var after int64
	switch ev, isResp := last.Orig.(*responses.ResponseStreamEventUnion); {
	case ok && isResp:
		after = ev.SequenceNumber
	case c.out.stitch.tr == tr && c.out.stitch.next > 0:
		after = c.out.stitch.next - 1
	default:
		return nil, false
	}
	if id == "" {
		return nil, false
	}
	return codec.Resume(c.req, id, after), true
}

// resume starts a continuation that resumes tr's stream at its route
// (see resumeRequest), and reports whether it started. c.mu is held.
func (c *call) resume(tr *try) bool {
	req, ok := c.resumeRequest(tr)
	if !ok {
		return false
	}
	c.resumed = true
	return c.tryOut(&try{rt: tr.rt, kind: AttemptContinuation, start: time.Now(), resume: req}, 0)
}

// serverEnded reports whether t is that of a Responses stream that broke
// because its server ended the response: an error event or
// response.failed (KindErrorEvent), or a final event whose status says the
// answer stopped short (a finish reason, as vLLM's response.completed with
// status "cancelled" after an abort). Such a response holds nothing more
// to replay: a GET would replay that end again (OpenAI's background mode;
// vLLM since vllm-project/vllm#49721), or, asked for the events after the
// last, wait for a response.completed that never comes (vLLM's
// responses_background_stream_generator before it).
func serverEnded(t *Timing) bool {
	return t.FinishReason != "" || isKind(t.Err, KindErrorEvent)
}

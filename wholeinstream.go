package tokenpace

import (
	"github.com/tokenpace/tokenpace/internal/codec"
	"github.com/tokenpace/tokenpace/internal/sse"
)

// A whole completion in place of a stream.
//
// Shimmy (Michael-A-Kuykendall/shimmy, src/openai_compat/mod.rs,
// completions) never streams /v1/completions: a streamed request gets the
// whole completion as one line of JSON, labelled application/json. Read
// as an event stream, that line is no field of the format, and the answer
// was lost behind KindContentType though the server gave it whole.

// TabbyAPI with `disable_request_streaming` (theroyallab/tabbyAPI
// endpoints/OAI/router.py) does the same on /v1/chat/completions: the
// whole chat.completion, its message where a chunk has a delta.

// Cloudflare AI Gateway with Guardrails on answers a streamed request with
// the provider's whole answer, as OpenAI prints it: over many lines, the
// first "{" alone (see sse.Reader.UnframedDocument).

// wholeInStream returns the event of a body that is no event stream (see
// sse.Reader.Sniff) when it is a whole completion (see
// codec.WholeCompletion) answering a completions request, or a whole
// chat completion (see codec.WholeChat) answering a chat request, and its
// memory; ok is false for any other body, which stays KindContentType.
// err is the failure of a read of a document printed over many lines (see
// sse.Reader.UnframedDocument): the connection lost, the body ended inside
// it, or the document over the limit on a line; a whole answer cut short
// is no wrong content type. A document that is no answer but an error
// object, on any API, is the server's error: err is its *sse.ErrorLine
// (see sse.DocumentError).
func (r *reading) wholeInStream() (ev codec.Event, size int, ok bool, err error) {
	data, err := r.sr.UnframedDocument()
	if err != nil {
		return ev, 0, false, err
	}
	switch r.req.API() {
	case codec.APICompletions:
		ev, size, err = r.decode(data)
		ok = err == nil && codec.WholeCompletion(ev)
	case codec.APIChat:
		if size, err = codec.Cost(r.req, data); err == nil {
			ev, ok = codec.WholeChat(r.req, data)
		}
	}
	if ok {
		return ev, size, true, nil
	}
	if el := sse.DocumentError(data); el != nil {
		return ev, 0, false, el
	}
	return ev, 0, false, nil
}

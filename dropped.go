package tokenpace

import (
	"net/http"
	"sync"

	"github.com/tokenpace/tokenpace/internal/wire"
)

// dropWatch tells, for one exchange, whether the server answered a
// completions request without a field it asked for (a suffix, an echo)
// and keeps what it found: which field, and which server dropped it. A
// whole answer says so at once (see answer); a stream in its first event
// (see firstEvent). Its methods are safe for concurrent use, under a lock
// of its own.
type dropWatch struct {
	mu sync.Mutex
	// template asks the server of a completions request with a suffix
	// for its completion template, once its answer has SGLang's shape
	// (see sglang); nil for any other request.
	template func() wire.Template
	// suffixAt is the server (host and model) of a stream sent in answer
	// to a completions request with a suffix, whose first event is yet to
	// say whether a server that drops the suffix made it.
	suffixAt string
	// echoAt: the stream was sent in answer to a completions request
	// with echo, whose first event is yet to say whether a server that
	// drops the echo of a stream made it.
	echoAt bool
	// field is the field of the request that its server, by
	// (wire.LlamaCpp, wire.LocalAI, wire.KoboldCpp or wire.CLIProxyAPI,
	// say), answered without (see wire.DroppedField); the client refused
	// the answer. Empty while none was found.
	field, by string
}

// ask sets how to ask the server of a request with a suffix for its
// completion template (see sglang).
func (w *dropWatch) ask(template func() wire.Template) {
	w.mu.Lock()
	w.template = template
	w.mu.Unlock()
}

// answer returns which server made res, a 2xx answer to a request with
// field, if it is one that drops that field: wire.LlamaCpp,
// wire.KoboldCpp, wire.CLIProxyAPI or wire.LlamaBox, told by its headers (see
// wire.FieldDropper), for an echo wire.Llamafile likewise (see
// wire.EchoDropper), or one told by the answer itself (see
// wholeAnswer); "" for another.
func (w *dropWatch) answer(res *http.Response, field string) string {
	if by := wire.FieldDropper(res); by != "" {
		return by
	}
	if by := wire.EchoDropper(res); by != "" && field == "echo" {
		return by
	}
	return w.wholeAnswer(res, field)
}

// wholeAnswer returns which server that drops field made res, a whole
// answer (not a stream) whose headers do not name it: for a suffix, see
// wire.SuffixDropper and sglang; for an echo, see wire.WholeEchoDropper;
// "" for another. It reads the answer ahead, up to wire.PeekBytes, once;
// the caller's reads then take those bytes first. A stream is not read
// ahead, which would hold the call until its first event: its first
// event is checked as it is read (see firstEvent).
func (w *dropWatch) wholeAnswer(res *http.Response, field string) string {
	if _, ok := res.Body.(wire.Ahead); !ok && isEventStream(res.Header.Get("Content-Type")) {
		return ""
	}
	// The reads go through the body's own stamps (arrivalBody, under the
	// bound of a whole answer), so the answer's arrival stays exact.
	start := wire.ReadAhead(res, wire.PeekBytes)
	switch field {
	case "echo":
		return wire.WholeEchoDropper(start)
	case "suffix":
		if by := wire.SuffixDropper(start); by != "" {
			return by
		}
		if w.sglang(start) {
			return wire.SGLang
		}
	}
	return ""
}

// sglang reports whether start, the start of an answer to a completions
// request with a suffix or its stream's first event, is SGLang's (see
// wire.SGLangAnswer) and its server says it has no completion template,
// so that it dropped the suffix. Only then does it ask the server, at
// most once a minute (see wire.SGLangServers); any other answer costs
// nothing more, and a server that does not say is taken to have used the
// suffix.
func (w *dropWatch) sglang(start []byte) bool {
	if !wire.SGLangAnswer(start) {
		return false
	}
	w.mu.Lock()
	ask := w.template
	w.mu.Unlock()
	return ask != nil && ask() == wire.TemplateMissing
}

// await makes the first event of the stream just answered say whether
// served (the server and model of a request with a suffix; "" for none)
// or, with echo, a server that drops the echo of a stream made it.
func (w *dropWatch) await(served string, echo bool) {
	w.mu.Lock()
	w.suffixAt, w.echoAt = served, echo
	w.mu.Unlock()
}

// pending reports whether the first event of the stream is to say
// whether its suffix or its echo was dropped (see firstEvent).
func (w *dropWatch) pending() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.suffixAt != "" || w.echoAt
}

// firstEvent reports whether data, the first event of a stream sent in
// answer to a completions request with a suffix or echo by a server whose
// headers do not name one that drops it (see await), was made by such a
// server all the same: for a suffix, llama.cpp's server (see
// wire.LlamaCppAnswer) and the others wire.SuffixDropper and sglang tell;
// for an echo, mistral.rs and LMDeploy (see wire.StreamEchoDropper). It
// returns the
// server that dropped the field, "" for none, and served as await was
// given it.
func (w *dropWatch) firstEvent(data []byte) (by, served string) {
	w.mu.Lock()
	served, echo := w.suffixAt, w.echoAt
	w.suffixAt, w.echoAt = "", false
	w.mu.Unlock()
	field := "suffix"
	switch {
	case echo:
		field, by = "echo", wire.StreamEchoDropper(data)
	case served != "":
		by = wire.SuffixDropper(data)
		if by == "" && w.sglang(data) {
			by = wire.SGLang
		}
	}
	if by != "" {
		w.dropped(field, by)
	}
	return by, served
}

// dropped notes that the server by dropped field.
func (w *dropWatch) dropped(field, by string) {
	w.mu.Lock()
	w.field, w.by = field, by
	w.mu.Unlock()
}

// found returns the field the server dropped and which server it was;
// "" and "" when none was found.
func (w *dropWatch) found() (field, by string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.field, w.by
}

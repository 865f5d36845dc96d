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
	// keeps asks a server whose answer has llama-cpp-python's shape
	// whether its build keeps the suffix all the same (see kept); nil
	// for any other request.
	keeps func() bool
	// suffixAt is the server (host and model) of a stream sent in answer
	// to a completions request with a suffix, whose first event is yet to
	// say whether a server that drops the suffix made it.
	suffixAt string
	// echoAt: the stream was sent in answer to a completions request
	// with echo, whose first event is yet to say whether a server that
	// drops the echo of a stream made it.
	echoAt bool
	// tgiAt: that stream came under TGI's router's headers (see
	// wire.TGIRouter), whose every server drops a stream's echo.
	tgiAt bool
	// field is the field of the request that its server, by
	// (wire.LlamaCpp, wire.LocalAI, wire.KoboldCpp or wire.CLIProxyAPI,
	// say), answered without (see wire.DroppedField); the client refused
	// the answer. Empty while none was found.
	field, by string
}

// ask sets how to ask the server of a request with a suffix for its
// completion template (see sglang) and whether its build keeps the
// suffix (see kept).
func (w *dropWatch) ask(template func() wire.Template, keeps func() bool) {
	w.mu.Lock()
	w.template, w.keeps = template, keeps
	w.mu.Unlock()
}

// answer returns which server made res, a 2xx answer to a request with
// field, if it is one that drops that field: wire.LlamaCpp,
// wire.KoboldCpp, wire.CLIProxyAPI or wire.LlamaBox, told by its headers (see
// wire.FieldDropper), for an echo wire.Llamafile likewise (see
// wire.EchoDropper), TGI's router or a fork of it (see tgiAnswer), or one
// told by the answer itself (see wholeAnswer); "" for another.
func (w *dropWatch) answer(res *http.Response, field string) string {
	if by := wire.FieldDropper(res); by != "" {
		return by
	}
	if by := wire.EchoDropper(res); by != "" && field == "echo" {
		return by
	}
	if wire.TGIRouter(res) {
		return tgiAnswer(res, field)
	}
	return w.wholeAnswer(res, field)
}

// tgiAnswer returns which server made res, an answer under TGI's
// router's headers (see wire.TGIRouter), if it dropped field: for a
// suffix, which TGI refuses, wire.TGIFork; for an echo, wire.TGI, unless
// res is LoRAX's whole answer, which holds the prompt (see
// wire.LoRAXAnswer), or a stream, whose first event tells (see
// firstEvent); "" for another.
func tgiAnswer(res *http.Response, field string) string {
	switch {
	case field == "suffix":
		return wire.TGIFork
	case field != "echo", streamed(res):
		return ""
	case wire.LoRAXAnswer(wire.ReadAhead(res, wire.PeekBytes)):
		return ""
	}
	return wire.TGI
}

// streamed reports whether res is a stream not read ahead, which the
// client reads as the caller does: reading it ahead would hold the call
// until its first event.
func streamed(res *http.Response) bool {
	_, ok := res.Body.(wire.Ahead)
	return !ok && isEventStream(res.Header.Get("Content-Type"))
}

// wholeAnswer returns which server that drops field made res, a whole
// answer (not a stream) whose headers do not name it: for a suffix, see
// wire.SuffixDropper and sglang; for an echo, see wire.WholeEchoDropper;
// "" for another. It reads the answer ahead, up to wire.PeekBytes, once;
// the caller's reads then take those bytes first. A stream is not read
// ahead (see streamed): its first event is checked as it is read (see
// firstEvent).
func (w *dropWatch) wholeAnswer(res *http.Response, field string) string {
	if streamed(res) {
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
			if w.kept(by) {
				return ""
			}
			return by
		}
		if w.sglang(start) {
			return wire.SGLang
		}
	}
	return ""
}

// kept reports whether by, the server a suffix's answer has the shape
// of, is a build of llama-cpp-python's server that keeps the suffix all
// the same, as its /openapi.json says (see wire.LlamaCppPythonServers):
// upstream's before 0.3.7, or JamePeng's fork. Only then does it ask the
// server, at most once a minute; a server that does not say is taken to
// have dropped the suffix, as upstream's builds since 0.3.7 do.
func (w *dropWatch) kept(by string) bool {
	if by != wire.LlamaCppPython {
		return false
	}
	w.mu.Lock()
	keeps := w.keeps
	w.mu.Unlock()
	return keeps != nil && keeps()
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
// or, with echo, a server that drops the echo of a stream made it; tgi:
// the stream came under TGI's router's headers (see wire.TGIRouter).
func (w *dropWatch) await(served string, echo, tgi bool) {
	w.mu.Lock()
	w.suffixAt, w.echoAt, w.tgiAt = served, echo, tgi
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
// for an echo, those wire.StreamEchoDropper tells (mistral.rs, LMDeploy,
// LoRAX and others) and, under TGI's router's headers, TGI. It returns
// the server that dropped the field, "" for none, and served as await
// was given it.
func (w *dropWatch) firstEvent(data []byte) (by, served string) {
	w.mu.Lock()
	served, echo, tgi := w.suffixAt, w.echoAt, w.tgiAt
	w.suffixAt, w.echoAt, w.tgiAt = "", false, false
	w.mu.Unlock()
	field := "suffix"
	switch {
	case echo:
		field, by = "echo", wire.StreamEchoDropper(data)
		if by == "" && tgi {
			by = wire.TGI
		}
	case served != "":
		by = wire.SuffixDropper(data)
		switch {
		case w.kept(by):
			by = ""
		case by == "" && w.sglang(data):
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

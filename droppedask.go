package tokenpace

import (
	"net/http"

	"github.com/openai/openai-go/v3/option"
	"github.com/tokenpace/tokenpace/internal/wire"
)

// droppedAsk is what an exchange keeps of a completions request that asks
// for a field some servers drop (a suffix, an echo: see
// wire.DroppedField), from its first try to the answer it gives back.
type droppedAsk struct {
	// field is the field a server may drop; "" for any other request.
	field string
	// asked is the completions request as the caller made it.
	asked []byte
	// model and served are the request's model and its server with that
	// model ("host model"): a gateway may serve llama.cpp's models beside
	// others, so what is learnt is the server's and the model's.
	model, served string
	// infill: the request is sent to llama.cpp's /infill instead.
	infill bool
}

// askDropped reads req for a field some servers drop and, for a suffix,
// readies the questions that tell such a server: its completion template
// (SGLang), whether its build keeps the suffix (llama-cpp-python), and whether the server is known to fill in the middle at
// /infill only, where req then goes at once.
func (x *exchange) askDropped(req *http.Request, next option.MiddlewareNext) (*http.Request, droppedAsk) {
	var d droppedAsk
	if wire.IsCompletions(req) {
		req = rewrite(req, func(body []byte) []byte {
			d.field, d.asked = wire.DroppedField(body), body
			return body
		})
	}
	if d.field != "suffix" {
		return req, d
	}
	asking := req
	x.drop.ask(func() wire.Template { return x.sglang.Template(asking, next) },
		func() bool { return x.llamaCppPython.KeepsSuffix(asking, next) })
	d.model = wire.RequestModel(d.asked)
	d.served = req.URL.Host + " " + d.model
	if x.infill.Has(d.served) {
		req, d.infill = wire.ToInfill(req, d.asked)
	}
	return req, d
}

// answerDropped returns the answer to give for res, the server's answer
// to req: res itself, restated (see wire.Restated), or an error in its
// place when the server dropped d's field. When the answer is to be
// asked of llama.cpp's /infill instead, it returns that request and no
// answer, res closed.
func (x *exchange) answerDropped(d *droppedAsk, req *http.Request, res *http.Response) (*http.Request, *http.Response) {
	toInfill := func(r *http.Request) (*http.Request, *http.Response) {
		// Fill-in-the-middle is this server's /infill: there at once,
		// and from now on.
		x.infill.Learn(d.served)
		_ = res.Body.Close()
		d.infill = true
		return r, nil
	}
	asks := d.field != "" && !d.infill
	switch {
	case asks && res.StatusCode < 300 && x.drop.answer(res, d.field) != "":
		by := x.drop.answer(res, d.field)
		if r, ok := wire.ToInfill(req, d.asked); ok && by == wire.LlamaCpp {
			return toInfill(r)
		}
		return nil, x.refuseDropped(res, by, d.field)
	case asks && wire.LlamaCppRefused(res, d.field):
		// llama.cpp's server before November 2025, or one still built on
		// its code, refuses the field with 500.
		if r, ok := wire.ToInfill(req, d.asked); ok && d.field == "suffix" {
			return toInfill(r)
		}
		return nil, wire.AsRequestError(res)
	case d.infill && wire.NoInfill(res):
		// A relay in front of llama.cpp's server that routes no /infill
		// (one-api): the suffix cannot be served there.
		x.infill.Forget(d.served)
		return nil, x.refuseDropped(res, wire.LlamaCpp, "suffix")
	}
	if asks && res.StatusCode < 300 && isEventStream(res.Header.Get("Content-Type")) {
		// A stream: its first event tells (see fieldIgnored).
		x.drop.await(d.served, d.field == "echo", wire.TGIRouter(res))
	}
	return nil, wire.Restated(res, d.asked)
}

package tokenpace

import (
	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace/internal/codec"
	"github.com/tokenpace/tokenpace/internal/wire"
)

// A tool loop's next request goes first to the route whose model signed
// the turn it answers (see wire.CallExtras.SignedBy): the client gives
// what a model signed back to that server and model alone, and Claude
// with extended thinking refuses the tool results of its own call
// without its blocks, 400 "Expected `thinking` or `redacted_thinking`,
// but found `tool_use`", while Gemini 3 takes Google's sentinel there
// and loses that step's reasoning.

// signedRoute returns the first route, in the Router's order, whose
// server and model signed the tool calls whose results end the chat
// request req with messages (see wire.CallExtras.SignedBy); nil when
// the request does not end with the results of tool calls (tool
// messages, then perhaps a user message with a tool's images), or no
// route's model signed the calls it answers. A route's server is the
// one its latest ended call sent to (see noteHosts): a route that has
// not sent yet signed nothing.
func (r *Router) signedRoute(req codec.Request, messages []openai.ChatCompletionMessageParamUnion) *route {
	if req.API() != codec.APIChat || wire.EndsWithResults(len(messages), func(i int) string { return roleOf(messages[i]) }) < 0 {
		return nil
	}
	extras := r.c.cfg.extras
	origins := make([]wire.Origin, len(r.routes))
	held := false
	for i, rt := range r.routes {
		host := rt.host.Load()
		if host == nil || !extras.Holds(*host) {
			continue
		}
		model := rt.Model
		if model == "" {
			model = req.Model()
		}
		origins[i], held = wire.Origin{Server: *host, Model: model}, true
	}
	if !held {
		return nil
	}
	if i := extras.SignedBy(codec.History(req, false), origins); i >= 0 {
		return r.routes[i]
	}
	return nil
}

// roleOf returns the role of m, as far as wire.EndsWithResults tells them
// apart: "tool", "user", "assistant", or "" for any other.
func roleOf(m openai.ChatCompletionMessageParamUnion) string {
	switch {
	case m.OfTool != nil:
		return "tool"
	case m.OfUser != nil:
		return "user"
	case m.OfAssistant != nil:
		return "assistant"
	}
	return ""
}

// noteHosts records, once the call has ended, the server each of its
// tries sent to, as its route's (see signedRoute). c.mu is held.
func (c *call) noteHosts() {
	for _, tr := range c.tries {
		if tr.a == nil {
			continue
		}
		if host := tr.a.x.origin().Server; host != "" {
			tr.rt.host.Store(&host)
		}
	}
}

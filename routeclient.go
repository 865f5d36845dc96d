package tokenpace

import (
	"slices"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// What a try of a Router call sends with at its route: the route's client
// (else the Router's) and the request options, the call's followed by the
// route's, with the middleware that reports the responses' rate-limit
// headers to a Limit that follows the server. A try's send and the cancel
// of a background response it left both ask here.

// clientFor returns the client a try at rt sends with, and the request
// options it sends with before those of its try.
func (c *call) clientFor(rt *route) (*openai.Client, []option.RequestOption) {
	client := rt.Client
	if client == nil {
		client = &c.r.c.oc
	}
	opts := c.opts
	if len(rt.Options) > 0 {
		opts = append(slices.Clip(opts), rt.Options...)
	}
	return client, opts
}

// followServer returns opts with the middleware that reports tr's
// responses' rate-limit headers to its route, when its Limit follows the
// server.
func (c *call) followServer(tr *try, opts []option.RequestOption) []option.RequestOption {
	if tr.ticket.res.server.s == nil {
		return opts
	}
	return append(slices.Clip(opts), option.WithMiddleware(tr.ticket.res.server.middleware()))
}

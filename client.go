package tokenpace

import (
	"context"
	"time"

	"github.com/openai/openai-go/v3"
)

// Client wraps an openai.Client so that every chat completion it makes is
// timed. It mirrors client.Chat.Completions: NewStreaming and New take the
// same parameters and request options, so switching costs one line.
//
// Middlewares (option.WithMiddleware) work as with openai-go: the stream
// reads the response they return, be it the server's, one with another
// body, or one they made without sending the request (a cache, a stub),
// and stamps its body as it is read. One case is out of reach: a
// middleware set on the openai.Client itself that returns another
// response than it got, while the call also takes option.WithResponseInto;
// the stream then reads the response the middleware got.
//
// A request that fails on a reused connection before any byte of a
// response came back was never processed (the server had closed the
// connection, as llama.cpp's server does after every stream though it says
// Keep-Alive): the Client sends it again at once, whatever openai-go's
// retry setting, and, once a server has closed a connection that had been
// idle for less than a second, asks it for Connection: close on later
// requests, so that none is written to a dead connection. Timing.HTTP
// lists every try.
//
// A stream asks for its usage (stream_options.include_usage) unless its
// parameters say otherwise. A server that refuses the field with the
// request (400 or 422 naming it: Azure OpenAI before API version
// 2024-10-21, gateways relaying to it) gets the request again at once
// without it, and later requests to that server and API version go
// without it; their streams report no usage, and Timing counts their
// output deltas instead. A request whose parameters set the field is sent
// as it is. So is a field the client gives back to a server (a tool
// call's thought signature, a turn's reasoning) that the server refuses.
//
// A Client is safe for concurrent use. Most callers make one with NewClient
// and keep it.
type Client struct {
	oc  openai.Client
	cfg config
}

// NewClient returns a Client that sends its requests through oc, configured
// by opts.
func NewClient(oc openai.Client, opts ...Option) *Client {
	return &Client{oc: oc, cfg: newConfig(opts)}
}

// hookEvents reports an attempt's events to h.
func hookEvents(ctx context.Context, h Hooks) attemptEvents {
	var ev attemptEvents
	if f := h.FirstToken; f != nil {
		ev.firstToken = func(a *attempt, at time.Time) {
			f(ctx, firstTokenInfo(a.spec.name, a.spec.req.Model(), a.sent(), at))
		}
	}
	if f := h.Milestone; f != nil {
		ev.milestone = func(a *attempt, name string, at time.Time) {
			f(ctx, milestoneInfo(a.spec.name, a.spec.req.Model(), name, a.sent(), at))
		}
	}
	if f := h.Done; f != nil {
		ev.end = func(_ *attempt, t *Timing) { f(ctx, t) }
	}
	return ev
}

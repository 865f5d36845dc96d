package tokenpace

import (
	"context"
	"slices"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
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

// New makes a non-streaming chat completion, as client.Chat.Completions.New
// does, and times it; NewTimed returns the Timing too. Errors are those of
// NewTimed.
func (c *Client) New(ctx context.Context, params openai.ChatCompletionNewParams, opts ...option.RequestOption) (*openai.ChatCompletion, error) {
	res, _, err := c.NewTimed(ctx, params, opts...)
	return res, err
}

// NewTimed makes a non-streaming chat completion and returns its Timing,
// which has no chunks and no milestones: its E2E ends when the last byte of
// the response arrived, and its token counts come from the response's
// usage. A failed
// call returns the caller's context error unchanged, or a KindRequest
// *StreamError that wraps openai-go's error (an *openai.Error for an error
// status).
func (c *Client) NewTimed(ctx context.Context, params openai.ChatCompletionNewParams, opts ...option.RequestOption) (*openai.ChatCompletion, *Timing, error) {
	t := &Timing{Target: c.cfg.name, Model: params.Model, Start: time.Now()}
	x := exchange{whole: true, closing: c.cfg.closing}
	var res *openai.ChatCompletion
	var err error
	what := "middleware"
	if perr := guard(c.cfg.name, &what, func() {
		res, err = c.oc.Chat.Completions.New(ctx, params, append(slices.Clip(opts), option.WithMiddleware(x.middleware()))...)
	}); perr != nil {
		res, err = nil, perr
	}
	t.End = time.Now()
	if last := x.lastRead(); !last.IsZero() {
		t.End = last
	}
	x.fill(t, true)
	if err != nil && !isPanic(err) {
		err = x.failure(ctx, c.cfg.name, err)
		res = nil
	}
	t.Err = err
	if res != nil {
		t.ResponseModel = res.Model
		if len(res.Choices) > 0 {
			t.FinishReason = res.Choices[0].FinishReason
		}
		t.setUsage(res.Usage, res.JSON.Usage.Valid())
	}
	if h := c.cfg.hooksFor(ctx); h.Done != nil {
		what = "Done hook"
		if perr := guard(c.cfg.name, &what, func() { h.Done(ctx, t) }); perr != nil && err == nil {
			t.Err, err = perr, perr
		}
	}
	return res, t, err
}

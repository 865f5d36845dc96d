package tokenpace

import (
	"github.com/tokenpace/tokenpace/internal/codec"

	"context"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
)

// New makes a non-streaming chat completion, as
// client.Chat.Completions.New does, under the Router's policies; NewTimed
// returns the caller's Timing too.
func (r *Router) New(ctx context.Context, params openai.ChatCompletionNewParams, opts ...option.RequestOption) (*openai.ChatCompletion, error) {
	res, _, err := r.NewTimed(ctx, params, opts...)
	return res, err
}

// NewTimed makes a non-streaming chat completion under the Router's
// policies and returns the response of the route that answered, with the
// caller's Timing (Attempts, Breaches filled in; no chunks but the whole
// response's, which arrived with its last byte).
//
// No token is visible before the whole response has arrived, so the
// budgets read differently than for a stream: Budget.TTFT bounds the time
// to the whole response, per route, and a route that misses it is left
// for the next one, as a stream without a first token is; Gap and MinTPS
// never apply; Budget.Total bounds the call. Fallback, hedging (the first
// whole response wins), breakers and limits apply as to a stream;
// Policy.Continue never applies, since no output reaches the caller
// before the end. A failed call returns the same errors as NewStreaming's
// Err.
func (r *Router) NewTimed(ctx context.Context, params openai.ChatCompletionNewParams, opts ...option.RequestOption) (*openai.ChatCompletion, *Timing, error) {
	return runWhole[openai.ChatCompletion](newCall(ctx, r, codec.Chat(params, false), opts))
}

// NewCompletion makes a non-streaming completion, as
// client.Completions.New does, under the Router's policies, with the
// budgets read as for NewTimed (Budget.TTFT bounds the whole response);
// NewCompletionTimed returns the caller's Timing too.
func (r *Router) NewCompletion(ctx context.Context, params openai.CompletionNewParams, opts ...option.RequestOption) (*openai.Completion, error) {
	res, _, err := r.NewCompletionTimed(ctx, params, opts...)
	return res, err
}

// NewCompletionTimed makes a non-streaming completion under the Router's
// policies, as NewTimed makes a chat completion, and returns the response
// of the route that answered with the caller's Timing.
func (r *Router) NewCompletionTimed(ctx context.Context, params openai.CompletionNewParams, opts ...option.RequestOption) (*openai.Completion, *Timing, error) {
	return runWhole[openai.Completion](newCall(ctx, r, codec.Completion(params, false), opts))
}

// NewResponse makes a non-streaming response, as client.Responses.New
// does, under the Router's policies, with the budgets read as for
// NewTimed (Budget.TTFT bounds the whole response); NewResponseTimed
// returns the caller's Timing too.
func (r *Router) NewResponse(ctx context.Context, params responses.ResponseNewParams, opts ...option.RequestOption) (*responses.Response, error) {
	res, _, err := r.NewResponseTimed(ctx, params, opts...)
	return res, err
}

// NewResponseTimed makes a non-streaming response under the Router's
// policies, as NewTimed makes a chat completion, and returns the response
// of the route that answered with the caller's Timing.
func (r *Router) NewResponseTimed(ctx context.Context, params responses.ResponseNewParams, opts ...option.RequestOption) (*responses.Response, *Timing, error) {
	return runWhole[responses.Response](newCall(ctx, r, codec.Response(params), opts))
}

// runWhole runs c as a non-streaming call and returns the whole response
// the caller gets, as its API sent it (a *R), with the caller's Timing,
// or the call's error.
func runWhole[R any](c *call) (*R, *Timing, error) {
	c.whole = true
	c.begin()
	s := newStream[R](c)
	var res any
	for s.Next() {
		res = s.current()
	}
	s.Close()
	t := s.Timing()
	if err := s.Err(); err != nil {
		return nil, t, err
	}
	r, ok := res.(*R)
	if !ok {
		// Never a zero response with a nil error.
		return nil, t, &StreamError{Kind: KindTruncated, Target: t.Target, Detail: "no response reached the caller"}
	}
	return r, t, nil
}

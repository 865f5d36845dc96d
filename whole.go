package tokenpace

import (
	"context"
	"errors"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/tokenpace/tokenpace/internal/codec"
)

// New makes a non-streaming chat completion, as
// client.Chat.Completions.New does, and times it (see WithTimingInto).
// An answer of status 200 that holds an error instead of choices (as
// OpenRouter sends when a model fails after it has started) is that
// error, a KindErrorEvent *StreamError that wraps it as an
// *openai.Error, where openai-go returns a completion without choices.
// An answer whose finish reason says the server stopped it itself
// ("abort", "error", "insufficient_system_resource") comes with a
// KindTruncated *StreamError: the completion holds what it had written.
// A choice whose message holds tool calls finishes for "tool_calls", as
// in a stream's Accumulated(), where its server said "stop" (Gemini,
// KoboldCpp); Timing.FinishReason keeps the server's word.
func (c *Client) New(ctx context.Context, params openai.ChatCompletionNewParams, opts ...option.RequestOption) (*openai.ChatCompletion, error) {
	return fetchWhole[openai.ChatCompletion](ctx, c, codec.Chat(params, false), opts)
}

// NewCompletion makes a non-streaming completion, as
// client.Completions.New does, and times it (see WithTimingInto).
func (c *Client) NewCompletion(ctx context.Context, params openai.CompletionNewParams, opts ...option.RequestOption) (*openai.Completion, error) {
	return fetchWhole[openai.Completion](ctx, c, codec.Completion(params, false), opts)
}

// NewResponse makes a non-streaming response, as client.Responses.New
// does, and times it (see WithTimingInto).
func (c *Client) NewResponse(ctx context.Context, params responses.ResponseNewParams, opts ...option.RequestOption) (*responses.Response, error) {
	return fetchWhole[responses.Response](ctx, c, codec.Response(params), opts)
}

// New makes a non-streaming chat completion, as
// client.Chat.Completions.New does, under the Router's policies, and
// returns the response of the route that answered. WithTimingInto gives
// the caller's Timing, with Attempts and Breaches filled in, and
// otherwise the figures Client.New gives for the same answer: no token
// showed before the whole response, so it has no chunks, no first token
// (TTFT 0, in each Attempt too) and no milestones, its E2E ends with the
// whole response's last byte, and its output tokens are the server's
// usage (0 without one, as for a background response still queued). No
// FirstToken or Milestone hook is called, and Policy.Probation holds
// nothing back.
//
// No token is visible before the whole response has arrived, so the
// budgets read differently than for a stream: Budget.TTFT bounds the time
// to the whole response, per route, and a route that misses it is left
// for the next one, as a stream without a first token is; Gap and MinTPS
// never apply; Budget.E2E bounds the call. Fallback, hedging (the first
// whole response wins), breakers and limits apply as to a stream;
// Policy.Continue never applies, since no output reaches the caller
// before the end. A failed call returns the same errors as NewStreaming's
// Err.
func (r *Router) New(ctx context.Context, params openai.ChatCompletionNewParams, opts ...option.RequestOption) (*openai.ChatCompletion, error) {
	return runWhole[openai.ChatCompletion](ctx, r, codec.Chat(params, false), opts)
}

// NewCompletion makes a non-streaming completion, as
// client.Completions.New does, under the Router's policies, as New makes
// a chat completion (Budget.TTFT bounds the whole response).
func (r *Router) NewCompletion(ctx context.Context, params openai.CompletionNewParams, opts ...option.RequestOption) (*openai.Completion, error) {
	return runWhole[openai.Completion](ctx, r, codec.Completion(params, false), opts)
}

// NewResponse makes a non-streaming response, as client.Responses.New
// does, under the Router's policies, as New makes a chat completion
// (Budget.TTFT bounds the whole response). A request that refers to a
// server's stored state goes to one route only, as NewResponseStreaming's
// does.
func (r *Router) NewResponse(ctx context.Context, params responses.ResponseNewParams, opts ...option.RequestOption) (*responses.Response, error) {
	return runWhole[responses.Response](ctx, r, codec.Response(params), opts)
}

// runWhole runs req as a non-streaming Router call and returns the whole
// response the caller gets, as its API sent it (a *R), or the call's
// error; the caller's Timing goes where WithTimingInto says.
func runWhole[R any](ctx context.Context, r *Router, req codec.Request, opts []option.RequestOption) (*R, error) {
	opts, dst := timingDst(opts)
	c := newCall(ctx, r, req, opts)
	c.whole = true
	c.begin()
	s := newStream[R](c, nil)
	var res any
	for s.Next() {
		res = s.current()
	}
	s.Close()
	t := s.Timing()
	if dst != nil {
		*dst = t
	}
	if err := s.Err(); err != nil {
		c.mu.Lock()
		cut, _ := c.cutWhole.(*R)
		c.mu.Unlock()
		if se := (*StreamError)(nil); res == nil && cut != nil && errors.As(err, &se) && (se.Kind == KindTruncated || errors.Is(err, errNIgnored)) {
			// A whole answer its server cut, and no route answered: the
			// text is the caller's, with the error, as Client.New gives it.
			return cut, err
		}
		return nil, err
	}
	whole, ok := res.(*R)
	if !ok {
		// Never a zero response with a nil error.
		return nil, &StreamError{Kind: KindTruncated, Target: t.Target, Detail: "no response reached the caller"}
	}
	return whole, nil
}

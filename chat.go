package tokenpace

import (
	"context"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace/internal/codec"
)

// NewStreaming starts a streaming chat completion, as
// client.Chat.Completions.NewStreaming does, and times it. It returns once
// the response headers arrived or the request failed (then Err reports why
// and Next returns false).
//
// Unless params set stream_options.include_usage, it is turned on, so that
// Timing counts tokens as the server does.
func (c *Client) NewStreaming(ctx context.Context, params openai.ChatCompletionNewParams, opts ...option.RequestOption) *Stream[openai.ChatCompletionChunk] {
	return clientStream[openai.ChatCompletionChunk](ctx, c, codec.Chat(params, true), opts)
}

// NewStreaming starts a streaming chat completion along the Router's
// routes, as Client.NewStreaming does for one target, and returns at once:
// Next waits for the first token of whichever route wins. Params and
// options are those of openai-go; each route may replace the model and
// add options.
//
// Stream.Err reports how the call ended: nil, the caller's context error
// unchanged, a *BudgetError (ErrBudgetExceeded), or a *StreamError: of
// KindInvalid (ErrInvalidOutput) when the validator rejected the output,
// of KindSkipped when no route could be tried, else the last route's.
//
// The Router owns retries: a route with another after it is sent without
// openai-go's retries (option.WithMaxRetries(0)), so a failure moves on at
// once; the Router retries the same route itself (AttemptRetry) only when
// its error response asked for a wait (Retry-After, recorded in
// Timing.HTTP) that, with the route's learnt TTFT, still fits the route's
// TTFT budget. The last route keeps the client's retry options.
//
// The call's Timing has one Attempt per route tried or skipped, in start
// order, even when there is only one, each with its own figures. The
// call's figures are the caller's: Sent is when the call's first request
// left, so Queue holds only the limiter wait before it; Chunks holds the
// arrival time of every output chunk the caller received, across
// continuations, so TTFT runs to the first token the caller received and
// ITL and TPOT cover the stream it read; End is the end the caller saw.
// Target, Model and the response data are those of the route that
// answered last; Headers and FirstChunk those of the first route whose
// output the caller received. The Client's Hooks see the call once:
// FirstToken for the winner (its TTFT the caller's), Milestone for the
// routes the caller reads, Done once with the final Timing.
//
// Tool calls: a stream that breaks after it handed the caller a tool-call
// delta is never continued; with Policy.Continue it restarts on the next
// route from the original request (AttemptRestart), and Stream.Restarted
// tells the caller on the first chunk of the new output, from which
// Accumulated starts over. Otherwise it ends with its error, and its tool
// calls may be incomplete. See Stream.Restarted.
func (r *Router) NewStreaming(ctx context.Context, params openai.ChatCompletionNewParams, opts ...option.RequestOption) *Stream[openai.ChatCompletionChunk] {
	req := codec.Chat(params, true)
	return newStream[openai.ChatCompletionChunk](r.begin(ctx, req, opts, false), req)
}

package tokenpace

import (
	"context"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace/internal/codec"
)

// NewCompletionStreaming starts a streaming completion, as
// client.Completions.NewStreaming does (fill-in-the-middle too, with
// params.Suffix), and times it exactly as NewStreaming times a chat
// completion: a token is an event whose choices carry text, TTFT runs to
// the first one, and the token counts come from the usage of the final
// event. Unless params set stream_options.include_usage, it is turned on.
//
// llama.cpp's server drops a suffix on /v1/completions: a
// fill-in-the-middle call to it goes to its /infill endpoint instead, and
// reaches the caller as a completion (see the README's "Real servers,
// hostile servers, and the caller's own code").
func (c *Client) NewCompletionStreaming(ctx context.Context, params openai.CompletionNewParams, opts ...option.RequestOption) *Stream[openai.Completion] {
	return clientStream[openai.Completion](ctx, c, codec.Completion(params, true), opts)
}

// NewCompletionStreaming starts a streaming completion, as
// client.Completions.NewStreaming does (fill-in-the-middle too, with
// params.Suffix), under the Router's policies, as NewStreaming starts a
// chat completion: budgets, fallback, hedging, breakers and limits alike,
// with the same figures for the caller (see NewStreaming).
//
// A continuation sends the prompt followed by the text the caller has
// received, with max_tokens reduced by the tokens delivered, and the same
// suffix: the server completes where the text stops, and no continue
// prompt is sent. It needs a prompt given as one string; with any other
// prompt (several prompts, token ids) Policy.Continue is ignored for the
// call, which then restarts on the next route as without it.
func (r *Router) NewCompletionStreaming(ctx context.Context, params openai.CompletionNewParams, opts ...option.RequestOption) *Stream[openai.Completion] {
	req := codec.Completion(params, true)
	return newStream[openai.Completion](r.begin(ctx, req, opts, false), req)
}

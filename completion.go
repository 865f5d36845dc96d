package tokenpace

import (
	"time"

	"github.com/tokenpace/tokenpace/internal/codec"

	"context"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// CompletionStream is a streaming completion (the completions API, also
// fill-in-the-middle with a suffix) with the shape of openai-go's
// ssestream.Stream (Next, Current, Err, Close) over openai.Completion
// events, plus its Timing and the text so far. It is measured and read as
// a Stream is: see Stream for how it buffers, and NewCompletionStreaming
// for what counts as a token.
type CompletionStream struct{ s *Stream }

// Next advances to the next event, waiting for it to arrive, and reports
// whether there is one. It returns false at the end of the stream, after
// an error (see Err) or after Close.
func (s *CompletionStream) Next() bool { return s.s.Next() }

// Current returns the event Next advanced to.
func (s *CompletionStream) Current() openai.Completion {
	if ev, ok := s.s.current().(*openai.Completion); ok {
		return *ev
	}
	return openai.Completion{}
}

// Err returns the error that ended the stream, as Stream.Err does.
func (s *CompletionStream) Err() error { return s.s.Err() }

// Close stops reading the response, as Stream.Close does.
func (s *CompletionStream) Close() error { return s.s.Close() }

// Timing returns the stream's Timing, as Stream.Timing does.
func (s *CompletionStream) Timing() *Timing { return s.s.Timing() }

// Text returns the text of the first choice of every event Next has
// returned so far; it remains available after the stream has ended,
// cleanly or not.
func (s *CompletionStream) Text() string {
	if acc := s.s.Accumulated(); len(acc.Choices) > 0 {
		return acc.Choices[0].Message.Content
	}
	return ""
}

// NewCompletionStreaming starts a streaming completion, as
// client.Completions.NewStreaming does (fill-in-the-middle too, with
// params.Suffix), and times it exactly as NewStreaming times a chat
// completion: a token is an event whose choices carry text, TTFT runs to
// the first one, and the token counts come from the usage of the final
// event. Unless params set stream_options.include_usage, it is turned on.
func (c *Client) NewCompletionStreaming(ctx context.Context, params openai.CompletionNewParams, opts ...option.RequestOption) *CompletionStream {
	start := time.Now()
	spec := attemptSpec{client: &c.oc, name: c.cfg.name, req: codec.Completion(params, true), opts: opts, cfg: &c.cfg, start: start}
	a := callAttempt(ctx, spec, hookEvents(ctx, c.cfg.hooksFor(ctx)))
	return &CompletionStream{newStream(attemptSource{a})}
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
func (r *Router) NewCompletionStreaming(ctx context.Context, params openai.CompletionNewParams, opts ...option.RequestOption) *CompletionStream {
	c := newCall(ctx, r, codec.Completion(params, true), opts)
	c.begin()
	return &CompletionStream{newStream(c)}
}

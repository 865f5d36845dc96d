package tokenpace

import (
	"github.com/tokenpace/tokenpace/internal/codec"

	"context"
	"time"

	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
)

// ResponseStream is a streaming response of the Responses API with the
// shape of openai-go's ssestream.Stream (Next, Current, Err, Close) over
// responses.ResponseStreamEventUnion events, plus its Timing and the
// output text so far. It is measured and read as a Stream is: see Stream
// for how it buffers, and NewResponseStreaming for what counts as a token.
type ResponseStream struct{ s *Stream }

// Next advances to the next event, waiting for it to arrive, and reports
// whether there is one. It returns false at the end of the stream, after
// an error (see Err) or after Close.
func (s *ResponseStream) Next() bool { return s.s.Next() }

// Current returns the event Next advanced to.
func (s *ResponseStream) Current() responses.ResponseStreamEventUnion {
	if ev, ok := s.s.current().(*responses.ResponseStreamEventUnion); ok {
		return *ev
	}
	return responses.ResponseStreamEventUnion{}
}

// Err returns the error that ended the stream, as Stream.Err does; an
// error event or response.failed gives a KindErrorEvent *StreamError that
// wraps an *openai.Error with the event's code and message.
func (s *ResponseStream) Err() error { return s.s.Err() }

// Close stops reading the response, as Stream.Close does.
func (s *ResponseStream) Close() error { return s.s.Close() }

// Timing returns the stream's Timing, as Stream.Timing does.
func (s *ResponseStream) Timing() *Timing { return s.s.Timing() }

// Restarted reports whether the event Current returns is the first of a
// restarted response, as Stream.Restarted does: a Router dropped the
// output before it, which carried a function call, and Text starts over.
// The event is the restarted response's first after response.in_progress
// (usually a response.output_item.added at output_index 0): the response,
// its id and its sequence numbers go on (see Router.NewResponseStreaming).
func (s *ResponseStream) Restarted() bool { return s.s.Restarted() }

// Text returns the output text of every response.output_text.delta event
// Next has returned so far (since the last restart); it remains available after the stream has
// ended, cleanly or not.
func (s *ResponseStream) Text() string {
	if acc := s.s.Accumulated(); len(acc.Choices) > 0 {
		return acc.Choices[0].Message.Content
	}
	return ""
}

// NewResponseStreaming starts a streaming response, as
// client.Responses.NewStreaming does, and times it as NewStreaming times
// a chat completion. A token is an output-bearing event: a delta of
// output text, refusal, reasoning (text or summary) or function-call
// arguments; TTFT runs to the first one. The token counts come from the
// usage of response.completed or response.incomplete; the stream ends
// cleanly when the body ends after one of them, and with a KindTruncated
// error when it ends before.
func (c *Client) NewResponseStreaming(ctx context.Context, params responses.ResponseNewParams, opts ...option.RequestOption) *ResponseStream {
	start := time.Now()
	spec := attemptSpec{client: &c.oc, name: c.cfg.name, req: codec.Response(params), opts: opts, cfg: &c.cfg, start: start}
	a := callAttempt(ctx, spec, hookEvents(ctx, c.cfg.hooksFor(ctx)))
	return &ResponseStream{newStream(attemptSource{a})}
}

// NewResponseStreaming starts a streaming response, as
// client.Responses.NewStreaming does, under the Router's policies, as
// NewStreaming starts a chat completion: budgets, fallback, hedging,
// breakers and limits alike, with the same figures for the caller.
//
// A continuation sends the input (a string input as one user message),
// then the output text the caller has received as an assistant message
// and Policy.ContinuePrompt as a user message, with max_output_tokens
// reduced by the tokens delivered. A stream that breaks after it handed
// the caller a function call is restarted instead, as NewStreaming's is:
// ResponseStream.Restarted tells the caller.
//
// However many routes answer, the caller reads one response, the first
// route's: a continuation's response.created and response.in_progress
// are not passed on, its message carries on the message the caller has
// open (same item_id, output_index and content_index; the done events
// hold the whole text), sequence_number goes on without a gap or a reset,
// and the final event's response has the first response's id and
// created_at, the whole output, and usage whose output_tokens count the
// whole output since the last restart (as Timing.OutputTokens does when
// there was none; input_tokens are the last request's, as
// Timing.PromptTokens). A restart's events go on in the
// same response too, its created and in_progress not passed on, but its
// output replaces the caller's: its items start again at output_index 0.
// The events passed on are rewritten in their raw JSON, so RawJSON, AsAny
// and the As methods agree with their fields; openai-go's
// responses.ResponseAccumulator accepts them (Reset it where Restarted
// reports true).
func (r *Router) NewResponseStreaming(ctx context.Context, params responses.ResponseNewParams, opts ...option.RequestOption) *ResponseStream {
	c := newCall(ctx, r, codec.Response(params), opts)
	if r.pol.Continue {
		c.stitch = new(respStitch)
	}
	c.begin()
	return &ResponseStream{newStream(c)}
}

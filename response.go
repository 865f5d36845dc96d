package tokenpace

import (
	"context"

	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/tokenpace/tokenpace/internal/codec"
)

// NewResponseStreaming starts a streaming response, as
// client.Responses.NewStreaming does, and times it as NewStreaming times
// a chat completion. A token is an output-bearing event: a delta of
// output text, refusal, reasoning (text or summary) or function-call
// arguments; TTFT runs to the first one. The token counts come from the
// usage of response.completed or response.incomplete; the stream ends
// cleanly when the body ends after one of them, and with a KindTruncated
// error when it ends before.
func (c *Client) NewResponseStreaming(ctx context.Context, params responses.ResponseNewParams, opts ...option.RequestOption) *Stream[responses.ResponseStreamEventUnion] {
	return clientStream[responses.ResponseStreamEventUnion](ctx, c, codec.Response(params), opts)
}

// NewResponseStreaming starts a streaming response, as
// client.Responses.NewStreaming does, under the Router's policies, as
// NewStreaming starts a chat completion: budgets, fallback, hedging,
// breakers and limits alike, with the same figures for the caller.
//
// A continuation sends the input (a string input as one user message),
// then the output text the caller has received as an assistant message
// and Policy.ContinuePrompt as a user message, with max_output_tokens
// reduced by the tokens delivered, to no less than 16: the least OpenAI's
// API accepts (it answers less with a 400), so the output may run up to 15
// tokens past the request's max_output_tokens. A stream that breaks after it handed
// the caller a function call is restarted instead, as NewStreaming's is:
// Stream.Restarted tells the caller.
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
// reports true). The response the server stored with the end of the
// output is the last attempt's, though: Timing.ResponseID names it, the
// id to give as previous_response_id for the next turn (the first
// response holds the output only up to where it broke, and no call a
// restart made).
//
// A request that refers to a server's stored state (PreviousResponseID,
// Conversation) is sent to one route only: the one that made the
// previous response, when the Router made it, else the call's first (see
// Affinity). No fallback, hedge, continuation or restart sends it to a
// route whose server does not hold that state.
//
// A response ends at its final event (response.completed,
// response.incomplete): budgets do not run on while the server keeps the
// body open after it.
func (r *Router) NewResponseStreaming(ctx context.Context, params responses.ResponseNewParams, opts ...option.RequestOption) *Stream[responses.ResponseStreamEventUnion] {
	return newStream[responses.ResponseStreamEventUnion](r.begin(ctx, codec.Response(params), opts, r.pol.Continue), nil)
}

package tokenpace

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
)

// Response event types that tokenpace reads.
const (
	respTextDelta      = "response.output_text.delta"
	respRefusalDelta   = "response.refusal.delta"
	respReasoningDelta = "response.reasoning_text.delta"
	respSummaryDelta   = "response.reasoning_summary_text.delta"
	respArgsDelta      = "response.function_call_arguments.delta"
	respCompleted      = "response.completed"
	respIncomplete     = "response.incomplete"
	respFailed         = "response.failed"
	respError          = "error"
)

// responseOutput reports whether a Responses event carries generated
// output: a delta of text, refusal, reasoning or function-call arguments.
func responseOutput(ev *responses.ResponseStreamEventUnion) bool {
	switch ev.Type {
	case respTextDelta, respRefusalDelta, respReasoningDelta, respSummaryDelta, respArgsDelta:
		return ev.Delta != ""
	}
	return false
}

// decodeResponse decodes the data of one Responses event into the event
// and its chat view: one choice whose delta holds the output text (or the
// refusal) and the model the response names. An error event, or a
// response.failed, ends the attempt with a KindErrorEvent error that wraps
// an *openai.Error; response.completed and response.incomplete mark the
// stream's end as clean.
func (a *attempt) decodeResponse(data []byte) (arrived, error) {
	ev := new(responses.ResponseStreamEventUnion)
	if err := json.Unmarshal(data, ev); err != nil {
		return arrived{}, a.failure(KindMalformed, "", err)
	}
	var d openai.ChatCompletionChunkChoiceDelta
	switch ev.Type {
	case respTextDelta:
		d.Content = ev.Delta
	case respRefusalDelta:
		d.Refusal = ev.Delta
	case respError:
		return arrived{}, a.failure(KindErrorEvent, ev.Code, a.apiError(ev.Code, ev.Message, ev.Param))
	case respFailed:
		e := ev.Response.Error
		return arrived{}, a.failure(KindErrorEvent, string(e.Code), a.apiError(string(e.Code), e.Message, ""))
	case respCompleted, respIncomplete:
		a.terminal = true
	}
	c := &openai.ChatCompletionChunk{
		Model:   ev.Response.Model,
		Choices: []openai.ChatCompletionChunkChoice{{Delta: d}},
	}
	return arrived{chunk: c, resp: ev}, nil
}

// apiError is the error an error event of the attempt's response reports.
func (a *attempt) apiError(code, message, param string) *openai.Error {
	return &openai.Error{Code: code, Message: message, Param: param, Type: respError,
		StatusCode: a.res.StatusCode, Request: a.res.Request, Response: a.res}
}

// setResponseEnd records what the final event of a response says: its
// usage, and its finish reason ("stop" once completed, the reason it is
// incomplete otherwise, e.g. "max_output_tokens").
func setResponseEnd(t *Timing, ev *responses.ResponseStreamEventUnion) {
	switch ev.Type {
	case respCompleted:
		t.FinishReason = "stop"
	case respIncomplete:
		t.FinishReason = ev.Response.IncompleteDetails.Reason
	default:
		return
	}
	if u := ev.Response.Usage; ev.Response.JSON.Usage.Valid() {
		t.trustUsage(u.InputTokens, u.InputTokensDetails.CachedTokens, u.OutputTokens)
	}
}

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
	if st := s.s; st.pos < len(st.batch) && st.batch[st.pos].resp != nil {
		return *st.batch[st.pos].resp
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
	spec := attemptSpec{
		client: &c.oc, name: c.cfg.name, opts: opts, cfg: &c.cfg, start: start,
		params:   openai.ChatCompletionNewParams{Model: params.Model},
		response: &params,
	}
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
	c := newCall(ctx, r, responseView(params), opts)
	c.response = &params
	if r.pol.Continue {
		c.stitch = new(respStitch)
	}
	c.begin()
	return &ResponseStream{newStream(c)}
}

// responseView returns the chat params through which a Router call sees
// a response's: its model, max_output_tokens, and its input as one
// message, for the prompt-token estimate.
func responseView(p responses.ResponseNewParams) openai.ChatCompletionNewParams {
	input := ""
	if s := p.Input.OfString; s.Valid() {
		input = s.Value
	} else if b, err := json.Marshal(p.Input); err == nil {
		input = string(b)
	}
	return openai.ChatCompletionNewParams{
		Model:     p.Model,
		Messages:  []openai.ChatCompletionMessageParamUnion{openai.UserMessage(p.Instructions.Value + input)},
		MaxTokens: p.MaxOutputTokens,
	}
}

// responseFor returns the response params of a try that asks for model;
// a continuation carries on the chain's text (see
// Router.NewResponseStreaming). c.mu is held.
func (c *call) responseFor(model string, continuation bool) *responses.ResponseNewParams {
	p := *c.response
	p.Model = model
	if continuation {
		var items responses.ResponseInputParam
		if s := p.Input.OfString; s.Valid() {
			items = append(items, responses.ResponseInputItemParamOfMessage(s.Value, responses.EasyInputMessageRoleUser))
		} else {
			items = slices.Clip(p.Input.OfInputItemList)
		}
		items = append(items,
			responses.ResponseInputItemParamOfMessage(c.chainText(), responses.EasyInputMessageRoleAssistant),
			responses.ResponseInputItemParamOfMessage(c.continuePrompt(), responses.EasyInputMessageRoleUser))
		p.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: items}
		if p.MaxOutputTokens.Valid() {
			p.MaxOutputTokens = openai.Int(max(1, p.MaxOutputTokens.Value-c.deliveredTokens()))
		}
	}
	return &p
}

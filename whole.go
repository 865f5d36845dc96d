package tokenpace

import (
	"context"
	"encoding/json"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// callWhole makes a non-streaming chat completion and ends the attempt:
// the whole response arrives as one chunk when its last byte did, so a
// TTFT budget bounds the time to the whole response.
func (a *attempt) callWhole(opts []option.RequestOption) {
	res, err := a.spec.client.Chat.Completions.New(a.ctx, a.spec.params, opts...)
	at := a.x.lastRead()
	if at.IsZero() {
		at = time.Now()
	}
	if err != nil {
		a.end(a.failure(KindRequest, "", err), time.Now())
		return
	}
	c, err := wholeChunk(res)
	if err != nil {
		a.end(a.failure(KindMalformed, "", err), at)
		return
	}
	a.deliver(arrived{chunk: c, whole: res, at: at, size: len(res.RawJSON())})
	a.outputEnd(at)
	a.end(nil, at)
}

// wholeChunk returns the chat view of a whole response: one chunk whose
// choices' deltas hold their messages (content, refusal, tool calls), with
// the response's id, model, finish reasons and usage.
func wholeChunk(res *openai.ChatCompletion) (*openai.ChatCompletionChunk, error) {
	c := new(openai.ChatCompletionChunk)
	if err := json.Unmarshal([]byte(res.RawJSON()), c); err != nil {
		return nil, err
	}
	for i := range c.Choices {
		if i >= len(res.Choices) {
			break
		}
		m := &res.Choices[i].Message
		d := &c.Choices[i].Delta
		d.Role = string(m.Role)
		d.Content, d.Refusal = m.Content, m.Refusal
		for j, tc := range m.ToolCalls {
			d.ToolCalls = append(d.ToolCalls, openai.ChatCompletionChunkChoiceDeltaToolCall{
				Index: int64(j), ID: tc.ID, Type: "function",
				Function: openai.ChatCompletionChunkChoiceDeltaToolCallFunction{Name: tc.Function.Name, Arguments: tc.Function.Arguments},
			})
		}
	}
	return c, nil
}

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
	c := newCall(ctx, r, params, opts)
	c.whole = true
	c.begin()
	s := newStream(c)
	var res *openai.ChatCompletion
	for s.Next() {
		if w := s.batch[s.pos].whole; w != nil {
			res = w
		}
	}
	s.Close()
	if err := s.Err(); err != nil {
		return nil, s.Timing(), err
	}
	return res, s.Timing(), nil
}

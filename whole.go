package tokenpace

import (
	"context"
	"encoding/json"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
)

// callWhole makes a non-streaming call (chat, completion or response, as
// the spec says) and ends the attempt: the whole response arrives as one
// chunk when its last byte did, so a TTFT budget bounds the time to the
// whole response.
func (a *attempt) callWhole(opts []option.RequestOption) {
	var ar fetched
	var err error
	what := "middleware"
	if perr := guard(a.spec.name, &what, func() { ar, err = a.fetchWhole(opts) }); perr != nil {
		a.end(perr, time.Now())
		return
	}
	at := a.x.lastRead()
	if at.IsZero() {
		at = time.Now()
	}
	if err != nil {
		if res, _ := a.x.response(); res != nil && res.StatusCode < 300 && !isJSON(res.Header.Get("Content-Type")) {
			// An answer, but not the API's: an HTML page of a proxy, say.
			a.end(a.failure(KindContentType, res.Header.Get("Content-Type"), nil), time.Now())
			return
		}
		a.end(a.requestFailure(err), time.Now())
		return
	}
	if ar.chunk == nil {
		a.end(a.failure(KindMalformed, "", ar.err), at)
		return
	}
	ar.at = at
	err = a.deliver(ar.arrived)
	if oerr := a.outputEnd(at); err == nil {
		err = oerr
	}
	a.end(err, at)
}

// fetched is a whole response and its chat view; chunk is nil, and err
// says why, when the response could not be read as its API's.
type fetched struct {
	arrived
	err error
}

// fetchWhole makes the spec's non-streaming call and returns the whole
// response as one arrived chunk, or the error of the request.
func (a *attempt) fetchWhole(opts []option.RequestOption) (fetched, error) {
	switch {
	case a.spec.completion != nil:
		res, err := a.spec.client.Completions.New(a.ctx, *a.spec.completion, opts...)
		if err != nil {
			return fetched{}, err
		}
		_, c, err := decodeCompletion([]byte(res.RawJSON()))
		return fetched{arrived{chunk: c, comp: res, size: len(res.RawJSON())}, err}, nil
	case a.spec.response != nil:
		res, err := a.spec.client.Responses.New(a.ctx, *a.spec.response, opts...)
		if err != nil {
			return fetched{}, err
		}
		c, err := wholeResponseChunk(res)
		return fetched{arrived{chunk: c, size: len(res.RawJSON())}, err}, nil
	}
	res, err := a.spec.client.Chat.Completions.New(a.ctx, a.spec.params, opts...)
	if err != nil {
		return fetched{}, err
	}
	c, err := wholeChunk(res)
	return fetched{arrived{chunk: c, whole: res, size: len(res.RawJSON())}, err}, nil
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

// wholeResponseChunk returns the chat view of a whole Responses response:
// one choice whose delta holds its output text, refusal and function
// calls, its finish reason ("stop" once completed, else why it is
// incomplete) and its usage. The chunk is decoded from the response's
// JSON, which its RawJSON keeps (see responseOf).
func wholeResponseChunk(res *responses.Response) (*openai.ChatCompletionChunk, error) {
	c := new(openai.ChatCompletionChunk)
	if err := json.Unmarshal([]byte(res.RawJSON()), c); err != nil {
		return nil, err
	}
	d := openai.ChatCompletionChunkChoiceDelta{Role: "assistant", Content: res.OutputText()}
	for _, item := range res.Output {
		switch item.Type {
		case "message":
			for _, part := range item.Content {
				if part.Type == "refusal" {
					d.Refusal += part.Refusal
				}
			}
		case "function_call":
			d.ToolCalls = append(d.ToolCalls, openai.ChatCompletionChunkChoiceDeltaToolCall{
				Index: int64(len(d.ToolCalls)), ID: item.CallID, Type: "function",
				Function: openai.ChatCompletionChunkChoiceDeltaToolCallFunction{Name: item.Name, Arguments: item.Arguments.OfString},
			})
		}
	}
	reason := "stop"
	if res.Status == responses.ResponseStatusIncomplete {
		reason = res.IncompleteDetails.Reason
	}
	c.Choices = []openai.ChatCompletionChunkChoice{{Delta: d, FinishReason: reason}}
	// The usage field is the response's (valid when it has one), its
	// counts those of the Responses API.
	u := res.Usage
	c.Usage = openai.CompletionUsage{
		PromptTokens: u.InputTokens, CompletionTokens: u.OutputTokens, TotalTokens: u.TotalTokens,
		PromptTokensDetails: openai.CompletionUsagePromptTokensDetails{CachedTokens: u.InputTokensDetails.CachedTokens},
	}
	return c, nil
}

// responseOf returns the Responses response whose chat view c is.
func responseOf(c *openai.ChatCompletionChunk) (*responses.Response, error) {
	res := new(responses.Response)
	if err := json.Unmarshal([]byte(c.RawJSON()), res); err != nil {
		return nil, err
	}
	return res, nil
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
	ar, t, err := c.runWhole()
	if err != nil {
		return nil, t, err
	}
	return ar.whole, t, nil
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
	c := newCall(ctx, r, completionView(params), opts)
	c.completion = &params
	ar, t, err := c.runWhole()
	if err != nil {
		return nil, t, err
	}
	return ar.comp, t, nil
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
	c := newCall(ctx, r, responseView(params), opts)
	c.response = &params
	ar, t, err := c.runWhole()
	if err != nil {
		return nil, t, err
	}
	res, err := responseOf(ar.chunk)
	if err != nil {
		return nil, t, &StreamError{Kind: KindMalformed, Target: t.Target, Err: err}
	}
	return res, t, nil
}

// runWhole runs c as a non-streaming call and returns the whole response
// the caller gets, with the caller's Timing, or the call's error.
func (c *call) runWhole() (arrived, *Timing, error) {
	c.whole = true
	c.begin()
	s := newStream(c)
	var res arrived
	for s.Next() {
		res = s.batch[s.pos]
	}
	s.Close()
	t := s.Timing()
	if err := s.Err(); err != nil {
		return arrived{}, t, err
	}
	if res.chunk == nil {
		// Never a zero response with a nil error.
		return arrived{}, t, &StreamError{Kind: KindTruncated, Target: t.Target, Detail: "no response reached the caller"}
	}
	return res, t, nil
}

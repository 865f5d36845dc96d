package tokenpace

import (
	"context"
	"encoding/json"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// eventStream is what an attempt keeps of openai-go's stream of any API:
// the error of the call and the means to close it. The attempt reads the
// body itself.
type eventStream interface {
	Err() error
	Close() error
}

// decodeCompletion decodes the data of a completions event and returns
// it with its chat view: its id and model, and per choice its index,
// finish reason and text as the delta's content, through which timing and
// policies see every API alike. The usage and any error field are read
// from the event itself.
func decodeCompletion(data []byte) (*openai.Completion, *openai.ChatCompletionChunk, error) {
	comp := new(openai.Completion)
	if err := json.Unmarshal(data, comp); err != nil {
		return nil, nil, err
	}
	c := &openai.ChatCompletionChunk{ID: comp.ID, Model: comp.Model, Created: comp.Created}
	if len(comp.Choices) > 0 {
		c.Choices = make([]openai.ChatCompletionChunkChoice, len(comp.Choices))
		for i := range comp.Choices {
			ch := &comp.Choices[i]
			c.Choices[i] = openai.ChatCompletionChunkChoice{
				Index:        ch.Index,
				FinishReason: string(ch.FinishReason),
				Delta:        openai.ChatCompletionChunkChoiceDelta{Content: ch.Text},
			}
		}
	}
	return comp, c, nil
}

// withCompletionUsage returns params asking for the usage event unless
// they say otherwise.
func withCompletionUsage(params openai.CompletionNewParams) openai.CompletionNewParams {
	if !params.StreamOptions.IncludeUsage.Valid() {
		params.StreamOptions.IncludeUsage = openai.Bool(true)
	}
	return params
}

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
	if st := s.s; st.pos < len(st.batch) && st.batch[st.pos].comp != nil {
		return *st.batch[st.pos].comp
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
	params = withCompletionUsage(params)
	c := newCall(ctx, r, completionView(params), opts)
	c.completion = &params
	c.begin()
	return &CompletionStream{newStream(c)}
}

// completionView returns the chat params through which a Router call
// sees a completion's: its model, max_tokens, and its prompt and suffix
// as one message, for the prompt-token estimate.
func completionView(p openai.CompletionNewParams) openai.ChatCompletionNewParams {
	prompt := ""
	if s := p.Prompt.OfString; s.Valid() {
		prompt = s.Value
	} else if b, err := json.Marshal(p.Prompt); err == nil {
		prompt = string(b)
	}
	return openai.ChatCompletionNewParams{
		Model:     string(p.Model),
		Messages:  []openai.ChatCompletionMessageParamUnion{openai.UserMessage(prompt + p.Suffix.Value)},
		MaxTokens: p.MaxTokens,
	}
}

// completionFor returns the completion params of a try that asks for
// model; a continuation appends the chain's text to the prompt and
// reduces max_tokens by the tokens delivered. c.mu is held.
func (c *call) completionFor(model string, continuation bool) *openai.CompletionNewParams {
	p := *c.completion
	p.Model = openai.CompletionNewParamsModel(model)
	if continuation {
		p.Prompt.OfString = openai.String(p.Prompt.OfString.Value + c.chainText())
		if p.MaxTokens.Valid() {
			p.MaxTokens = openai.Int(max(1, p.MaxTokens.Value-c.deliveredTokens()))
		}
	}
	return &p
}

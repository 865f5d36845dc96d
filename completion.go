package tokenpace

import (
	"encoding/json"

	"github.com/openai/openai-go/v3"
)

// eventStream is what an attempt keeps of openai-go's stream of any API:
// the error of the call and the means to close it. The attempt reads the
// body itself.
type eventStream interface {
	Err() error
	Close() error
}

// decodeCompletion decodes the data of a completions event and fills c,
// the same data decoded as a chat chunk (id, model, choices' index and
// finish reason, usage, error), with each choice's text as its delta
// content: the chat view through which timing and policies see every
// API alike.
func decodeCompletion(data []byte, c *openai.ChatCompletionChunk) (*openai.Completion, error) {
	comp := new(openai.Completion)
	if err := json.Unmarshal(data, comp); err != nil {
		return nil, err
	}
	for i := range comp.Choices {
		if i < len(c.Choices) {
			c.Choices[i].Delta.Content = comp.Choices[i].Text
		}
	}
	return comp, nil
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

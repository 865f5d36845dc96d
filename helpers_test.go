package tokenpace_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// simClient returns a tokenpace Client of a simulator started with sopts,
// in memory (virtual time inside a synctest bubble), without retries.
func simClient(t *testing.T, sopts []simulate.Option, opts ...tokenpace.Option) *tokenpace.Client {
	t.Helper()
	ts := simulate.StartInMemory(t, sopts...)
	return tokenpace.NewClient(openaiClient(ts.URL, ts.Client), opts...)
}

// openaiClient returns an openai-go client of baseURL without retries.
func openaiClient(baseURL string, hc option.HTTPClient) openai.Client {
	return openai.NewClient(
		option.WithBaseURL(baseURL),
		option.WithHTTPClient(hc),
		option.WithAPIKey("sk-test-secret"),
		option.WithMaxRetries(0),
	)
}

// chat returns streaming chat params for model with max_tokens n.
func chat(model string, n int) openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{
		Model:     model,
		Messages:  []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Tell me about latency.")},
		MaxTokens: openai.Int(int64(n)),
	}
}

// drain reads s to its end, sleeping pause after each chunk like a slow
// caller, and returns the chunks read.
func drain(t *testing.T, s *tokenpace.Stream, pause time.Duration) []openai.ChatCompletionChunk {
	t.Helper()
	var out []openai.ChatCompletionChunk
	for s.Next() {
		out = append(out, s.Current())
		if pause > 0 {
			time.Sleep(pause)
		}
	}
	return out
}

// record is a Hooks.Done that keeps every Timing it is given.
type record struct{ done []*tokenpace.Timing }

func (r *record) hooks() tokenpace.Hooks {
	return tokenpace.Hooks{Done: func(_ context.Context, t *tokenpace.Timing) { r.done = append(r.done, t) }}
}

// checkKind fails t unless err is a *tokenpace.StreamError of kind want.
func checkKind(t *testing.T, err error, want tokenpace.ErrorKind) *tokenpace.StreamError {
	t.Helper()
	var se *tokenpace.StreamError
	if !errorsAs(err, &se) {
		t.Fatalf("Err() = %v (%T), want a *StreamError of kind %v", err, err, want)
	}
	if se.Kind != want {
		t.Fatalf("Err().Kind = %v, want %v (err %v)", se.Kind, want, err)
	}
	return se
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }

// withFault asks the simulator for a fault (see simulate.FaultHeader).
func withFault(f string) option.RequestOption { return option.WithHeader(simulate.FaultHeader, f) }

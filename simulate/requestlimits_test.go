package simulate_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace/simulate"
)

// A prompt over the model's context is refused at once with vLLM's 400,
// and never fills the KV cache: a small request sent beside it is served
// as if it were alone.
func TestContextLengthRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := simulate.StartInMemory(t, simulate.WithModel("m", serveEngine(t, simulate.Deployment{})))
		c := newClient(ts)
		huge := wholeChatParams("m", 16)
		huge.Messages = []openai.ChatCompletionMessageParamUnion{openai.UserMessage(strings.Repeat("word ", 800_000))} // ~4 MB
		var wg sync.WaitGroup
		var hugeErr error
		var refusedAfter time.Duration
		start := time.Now()
		wg.Go(func() {
			_, hugeErr = c.Chat.Completions.New(context.Background(), huge)
			refusedAfter = time.Since(start)
		})
		small := chatStream(t, c, chatParams("m", 5))
		wg.Wait()
		var ae *openai.Error
		if !errors.As(hugeErr, &ae) || ae.StatusCode != 400 || !strings.Contains(ae.Message, "maximum context length is 131072 tokens") || ae.Param != "messages" {
			t.Fatalf("huge prompt: %v, want a 400 on messages naming the 131072-token context", hugeErr)
		}
		if refusedAfter > time.Millisecond {
			t.Errorf("huge prompt refused after %v, want at once", refusedAfter)
		}
		alone := chatStream(t, c, chatParams("m", 5))
		if small.err != nil || len(small.arrivals) != 5 || small.arrivals[0] != alone.arrivals[0] {
			t.Errorf("small request beside it: err %v, %d chunks, TTFT %v; alone TTFT %v", small.err, len(small.arrivals), small.arrivals, alone.arrivals[0])
		}
	})
}

// A request whose prompt and max_tokens together exceed the context is
// refused; without max_tokens, its output is cut to what fits.
func TestContextLengthWithOutput(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, err := simulate.LookupModel("llama-2-7b")
		if err != nil {
			t.Fatal(err)
		}
		ts := simulate.StartInMemory(t, simulate.WithModel("m", serveEngine(t, simulate.Deployment{Model: m})))
		c := newClient(ts)
		p := wholeChatParams("m", 4000)
		p.Messages = []openai.ChatCompletionMessageParamUnion{openai.UserMessage(strings.Repeat("abcd", 1000))} // ~1000 tokens
		_, err = c.Chat.Completions.New(context.Background(), p)
		var ae *openai.Error
		if !errors.As(err, &ae) || ae.StatusCode != 400 || !strings.Contains(ae.Message, "maximum context length is 4096 tokens. However, you requested") {
			t.Fatalf("prompt + max_tokens over 4096: %v, want a 400", err)
		}
		p.MaxTokens = openai.Int(3000)
		if _, err := c.Chat.Completions.New(context.Background(), p); err != nil {
			t.Errorf("prompt + max_tokens within 4096: %v", err)
		}
	})
}

// Sampling parameters out of the ranges OpenAI documents get a 400 naming
// the parameter, on every endpoint.
func TestSamplingParametersChecked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := simulate.StartInMemory(t, simulate.WithModel("m", &simulate.Fixed{TTFT: time.Millisecond, ITL: time.Millisecond}))
		for _, tt := range []struct{ field, value, param string }{
			{"temperature", "-1e308", "temperature"}, {"temperature", "2.5", "temperature"},
			{"top_p", "5", "top_p"}, {"top_p", "-0.1", "top_p"},
			{"presence_penalty", "3", "presence_penalty"}, {"frequency_penalty", "-2.01", "frequency_penalty"},
		} {
			for _, ep := range []struct{ path, body string }{
				{"/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}],"` + tt.field + `":` + tt.value + `}`},
				{"/completions", `{"model":"m","prompt":"hi","` + tt.field + `":` + tt.value + `}`},
				{"/responses", `{"model":"m","input":"hi","` + tt.field + `":` + tt.value + `}`},
			} {
				x := post(t, ts, "/v1"+ep.path, ep.body, nil)
				status, body := x.status, x.body
				if status != 400 || !strings.Contains(body, `"param":"`+tt.param+`"`) {
					t.Errorf("%s %s=%s: %d %s, want 400 naming %s", ep.path, tt.field, tt.value, status, body, tt.param)
				}
			}
		}
		if x := post(t, ts, "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}],"temperature":0,"top_p":1,"presence_penalty":-2}`, nil); x.status != 200 {
			t.Errorf("values in range: %d %s, want 200", x.status, x.body)
		}
	})
}

package tokenpace_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
)

// TestEchoAloneIsNoFirstToken: text-generation-webui answers a streamed
// completions request with echo by sending the prompt alone as its first
// chunk, before the model has read it, then the tokens
// (extensions/openai/completions.py, completions_common). The caller's
// TTFT is the first token's, 400 ms in, not the echo's; its text holds
// the echo and the completion, and TPOT counts the two tokens only. A
// chunk that holds the prompt and the first token together (OpenAI's,
// vLLM's) is the first token.
func TestEchoAloneIsNoFirstToken(t *testing.T) {
	const prompt = "def add(a, b):"
	chunk := func(text, finish string) string {
		f := "null"
		if finish != "" {
			f = fmt.Sprintf("%q", finish)
		}
		return fmt.Sprintf("data: {\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"finish_reason\":%s,\"text\":%q,\"logprobs\":{\"top_logprobs\":[{}]}}]}\n\n", f, text)
	}
	for _, tt := range []struct {
		name   string
		echo   bool // the server sends the echo alone first
		glued  bool // or with the first token
		ttftMS int
	}{
		{"the echo alone, then the tokens", true, false, 400},
		{"the echo with the first token", false, true, 400},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "text/event-stream")
					f := w.(http.Flusher)
					first := "\n    return"
					if tt.echo {
						fmt.Fprint(w, chunk(prompt, ""))
						f.Flush()
					} else if tt.glued {
						first = prompt + first
					}
					time.Sleep(400 * time.Millisecond) // the prefill, on the bubble's clock
					fmt.Fprint(w, chunk(first, ""))
					f.Flush()
					time.Sleep(20 * time.Millisecond)
					fmt.Fprint(w, chunk(" a + b", "stop"))
					fmt.Fprint(w, "data: [DONE]\n\n")
				}))
				c := tokenpace.NewClient(openaiClient(url, hc))
				s := c.NewCompletionStreaming(context.Background(), openai.CompletionNewParams{Model: "m",
					Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String(prompt)}, Echo: openai.Bool(true)})
				for s.Next() {
				}
				s.Close()
				tm := s.Timing()
				want := prompt + "\n    return a + b"
				if s.Err() != nil || s.Text() != want {
					t.Fatalf("text %q, error %v; want %q, nil", s.Text(), s.Err(), want)
				}
				if got := tm.TTFT(); got != time.Duration(tt.ttftMS)*time.Millisecond {
					t.Errorf("TTFT %v, want %d ms, the first token's", got, tt.ttftMS)
				}
				if tm.OutputTokens != 2 || tm.TPOT() != 20*time.Millisecond {
					t.Errorf("output tokens %d, TPOT %v; want 2 counted from the deltas and 20ms", tm.OutputTokens, tm.TPOT())
				}
			})
		})
	}
}

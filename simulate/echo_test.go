package simulate_test

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace/simulate"
)

// A completions request with echo gets its prompt back before the
// completion, as OpenAI answers one: streamed, in the first event, which
// comes with the first token; whole, at the start of the text. The usage
// counts the completion alone.
func TestCompletionsEcho(t *testing.T) {
	const prompt = "Latency is"
	params := openai.CompletionNewParams{
		Model:         "m",
		Prompt:        openai.CompletionNewParamsPromptUnion{OfString: openai.String(prompt)},
		Echo:          openai.Bool(true),
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	}
	t.Run("streaming", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c := newClient(scripted(t))
			start := time.Now()
			s := c.Completions.NewStreaming(context.Background(), params)
			defer s.Close()
			var texts []string
			var first time.Duration
			var usage openai.CompletionUsage
			for s.Next() {
				ch := s.Current()
				if len(ch.Choices) > 0 && ch.Choices[0].Text != "" {
					if texts == nil {
						first = time.Since(start)
					}
					texts = append(texts, ch.Choices[0].Text)
				}
				if ch.JSON.Usage.Valid() {
					usage = ch.Usage
				}
			}
			if err := s.Err(); err != nil {
				t.Fatalf("stream error: %v", err)
			}
			if got := strings.Join(texts, ""); got != prompt+script || !strings.HasPrefix(texts[0], prompt) {
				t.Errorf("streamed text = %q, want %q with the prompt in the first event", texts, prompt+script)
			}
			if first != ms(100) {
				t.Errorf("first text at %v, want %v (with the first token)", first, ms(100))
			}
			if usage.CompletionTokens != 4 {
				t.Errorf("completion_tokens = %d, want 4 (the reply alone)", usage.CompletionTokens)
			}
		})
	})
	t.Run("whole", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c := newClient(scripted(t))
			p := params
			p.StreamOptions = openai.ChatCompletionStreamOptionsParam{}
			res, err := c.Completions.New(context.Background(), p)
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			if got := res.Choices[0].Text; got != prompt+script {
				t.Errorf("text = %q, want %q", got, prompt+script)
			}
			if res.Usage.CompletionTokens != 4 {
				t.Errorf("completion_tokens = %d, want 4 (the reply alone)", res.Usage.CompletionTokens)
			}
		})
	})
	t.Run("token ids", func(t *testing.T) {
		// The simulator has no tokenizer to give the text of token ids
		// back: it says so rather than leave the echo out.
		synctest.Test(t, func(t *testing.T) {
			ts := simulate.StartInMemory(t, simulate.WithModel("m", &simulate.Fixed{}))
			x := post(t, ts, "/v1/completions", `{"model":"m","prompt":[1,2,3],"echo":true,"max_tokens":2}`, nil)
			if x.status != 400 {
				t.Errorf("status = %d, want 400 (body %s)", x.status, x.body)
			}
			checkErrorBody(t, x.body, "echo")
		})
	})
}

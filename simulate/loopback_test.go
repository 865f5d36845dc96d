package simulate_test

import (
	"context"
	"errors"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace/simulate"
)

// Over real loopback HTTP, openai-go streams, decodes usage and finishes.
func TestLoopbackWithOpenAIGo(t *testing.T) {
	ts := simulate.StartLoopback(t,
		simulate.WithModel("big", &simulate.Fixed{TTFT: ms(5), ITL: ms(1)}),
		simulate.WithModel("small", &simulate.Fixed{}),
		simulate.WithReply(func(r simulate.ReplyInfo) (string, bool) { return r.Model + " says hello to you", true }))
	c := newClient(ts)
	for _, model := range []string{"big", "small"} {
		got := chatStream(t, c, chatParams(model, 100))
		if got.err != nil {
			t.Fatalf("%s: stream: %v", model, got.err)
		}
		if want := model + " says hello to you"; got.text != want || got.finish != "stop" || got.usage.CompletionTokens != 5 {
			t.Errorf("%s: text, finish, tokens = %q, %s, %d, want %q, stop, 5", model, got.text, got.finish, got.usage.CompletionTokens, want)
		}
	}
	res, err := c.Completions.New(context.Background(), openai.CompletionNewParams{
		Model:     "small",
		Prompt:    openai.CompletionNewParamsPromptUnion{OfString: openai.String("hi")},
		MaxTokens: openai.Int(2),
	})
	if err != nil {
		t.Fatalf("completions: %v", err)
	}
	if res.Choices[0].Text != "small says" || res.Choices[0].FinishReason != "length" {
		t.Errorf("completions = %q, %s, want %q, length", res.Choices[0].Text, res.Choices[0].FinishReason, "small says")
	}
	models, err := c.Models.List(context.Background())
	if err != nil || len(models.Data) != 2 {
		t.Fatalf("models: %v, %v", models, err)
	}
	if m, err := c.Models.Get(context.Background(), "big"); err != nil || m.ID != "big" {
		t.Errorf("Models.Get(big) = %v, %v, want big", m, err)
	}
	_, err = c.Chat.Completions.New(context.Background(), wholeChatParams("nope", 1))
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 404 {
		t.Errorf("unknown model error = %v, want a 404 *openai.Error", err)
	}
}

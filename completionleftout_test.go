package tokenpace_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
)

// TestWholeAnswerCompletionLeftOut: Gemini's OpenAI-compatible endpoint
// answers a thinking model whose thoughts spent max_tokens with a choice
// of no message, finish_reason "length", and a usage of prompt_tokens and
// total_tokens alone (agentgateway/agentgateway#1464, the body of its
// test). The caller's Timing counts the 7 output tokens the total holds
// beyond the prompt (before: 0, as if nothing was generated).
func TestWholeAnswerCompletionLeftOut(t *testing.T) {
	body := `{"id":"1","object":"chat.completion","created":0,"model":"google/gemini-2.5-flash",` +
		`"choices":[{"index":0,"finish_reason":"length"}],"usage":{"prompt_tokens":5,"total_tokens":12}}`
	tp := tokenpace.NewClient(openai.NewClient(option.WithBaseURL("http://in-process.invalid/v1/"), option.WithAPIKey("x"),
		option.WithMaxRetries(0), option.WithHTTPClient(&http.Client{Transport: fixedTransport(func() *http.Response {
			return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
				Body: io.NopCloser(strings.NewReader(body))}
		})})))
	var tm *tokenpace.Timing
	c, err := tp.New(context.Background(), chat("google/gemini-2.5-flash", 7), tokenpace.WithTimingInto(&tm))
	if err != nil {
		t.Fatalf("New: %v, want the answer", err)
	}
	if len(c.Choices) != 1 || c.Choices[0].Message.Content != "" || c.Choices[0].FinishReason != "length" {
		t.Fatalf("New = %+v, want one choice of no text, finish \"length\"", c.Choices)
	}
	if tm == nil {
		t.Fatal("no Timing")
	}
	if tm.PromptTokens != 5 || tm.OutputTokens != 7 || !tm.UsageReported || tm.FinishReason != "length" {
		t.Errorf("Timing = %d prompt, %d output (reported %v), finish %q; want 5, 7 (true), \"length\"",
			tm.PromptTokens, tm.OutputTokens, tm.UsageReported, tm.FinishReason)
	}
}

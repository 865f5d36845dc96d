package tokenpace_test

import (
	"context"
	"testing"

	"github.com/tokenpace/tokenpace"
)

// TestWholeAnswerCompletionLeftOut: Gemini's OpenAI-compatible endpoint
// (Vertex AI's, as agentgateway/agentgateway#1464 reports it) answers a
// thinking model cut by max_tokens before any text with a choice of no
// content, finish_reason "length", and a usage whose completion_tokens
// is 0 (written, in the answer agentgateway's #1465 captured,
// gemini_zero_completion_tokens.json) or left out (the body of its test
// completions_response_missing_message_and_usage_fields), the tokens
// generated only in total_tokens. The caller's Timing counts the output
// the total holds beyond the prompt (before: 0 for both; then 0 for the
// captured one, as if nothing was generated).
func TestWholeAnswerCompletionLeftOut(t *testing.T) {
	tests := []struct {
		name, body     string
		prompt, output int
	}{
		{"completion_tokens left out (agentgateway's test body)",
			`{"id":"1","object":"chat.completion","created":0,"model":"google/gemini-2.5-flash",` +
				`"choices":[{"index":0,"finish_reason":"length"}],"usage":{"prompt_tokens":5,"total_tokens":12}}`, 5, 7},
		{"completion_tokens 0 written (agentgateway's capture)",
			`{"model":"gemini-2.5-flash","usage":{"prompt_tokens":7,"completion_tokens":0,"total_tokens":8},` +
				`"choices":[{"message":{"role":"assistant"},"finish_reason":"length","index":0}],` +
				`"created":1775595226,"id":"2m7Vaca_HdfC1MkP1trPwAM","object":"chat.completion"}`, 7, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tp := answeringClient("application/json", tt.body)
			var tm *tokenpace.Timing
			c, err := tp.New(context.Background(), chat("gemini-2.5-flash", 7), tokenpace.WithTimingInto(&tm))
			if err != nil {
				t.Fatalf("New: %v, want the answer", err)
			}
			if len(c.Choices) != 1 || c.Choices[0].Message.Content != "" || c.Choices[0].FinishReason != "length" {
				t.Fatalf("New = %+v, want one choice of no text, finish \"length\"", c.Choices)
			}
			if tm == nil {
				t.Fatal("no Timing")
			}
			if tm.PromptTokens != tt.prompt || tm.OutputTokens != tt.output || !tm.UsageReported || tm.FinishReason != "length" {
				t.Errorf("Timing = %d prompt, %d output (reported %v), finish %q; want %d, %d (true), \"length\"",
					tm.PromptTokens, tm.OutputTokens, tm.UsageReported, tm.FinishReason, tt.prompt, tt.output)
			}
			if tm.TTFT() != 0 || tm.TPOT() != 0 || tm.TPS() != 0 || tm.OutputChunks != 0 {
				t.Errorf("TTFT %v, TPOT %v, TPS %v, %d output chunks; want none of them: no output was delivered",
					tm.TTFT(), tm.TPOT(), tm.TPS(), tm.OutputChunks)
			}
		})
	}
}

// TestStreamCompletionZeroBesideTotal: the same usage on a stream's
// finish chunk, completion_tokens 0 written and total_tokens one past
// the prompt, after a chunk of the role alone. The caller reads no text
// and no error; its Timing counts 7 prompt and 1 output token, and has
// no TTFT, TPOT or TPS: no output was delivered to time (before: 0
// output tokens).
func TestStreamCompletionZeroBesideTotal(t *testing.T) {
	body := "data: {\"id\":\"g\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gemini-2.5-flash\"," +
		"\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"},\"finish_reason\":\"length\"}]," +
		"\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":0,\"total_tokens\":8}}\n\ndata: [DONE]\n\n"
	tp := answeringClient("text/event-stream", body)
	s := tp.NewStreaming(context.Background(), chat("gemini-2.5-flash", 7))
	defer s.Close()
	for s.Next() {
	}
	if err := s.Err(); err != nil {
		t.Fatalf("Err = %v, want nil", err)
	}
	tm := s.Timing()
	if tm.PromptTokens != 7 || tm.OutputTokens != 1 || !tm.UsageReported || tm.FinishReason != "length" {
		t.Errorf("Timing = %d prompt, %d output (reported %v), finish %q; want 7, 1 (true), \"length\"",
			tm.PromptTokens, tm.OutputTokens, tm.UsageReported, tm.FinishReason)
	}
	if tm.TTFT() != 0 || tm.TPOT() != 0 || tm.TPS() != 0 || tm.OutputChunks != 0 {
		t.Errorf("TTFT %v, TPOT %v, TPS %v, %d output chunks; want none", tm.TTFT(), tm.TPOT(), tm.TPS(), tm.OutputChunks)
	}
	if got := s.Accumulated().Usage; got.PromptTokens != 7 || got.CompletionTokens != 1 || got.TotalTokens != 8 {
		t.Errorf("Accumulated().Usage = %d/%d/%d, want 7/1/8", got.PromptTokens, got.CompletionTokens, got.TotalTokens)
	}
}

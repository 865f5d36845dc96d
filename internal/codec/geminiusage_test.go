package codec

import (
	"fmt"
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestGeminiThoughtsApart checks the usage of a finish chunk of Vercel AI
// Gateway's for a Gemini model: the reasoning tokens are added to the
// output where Gemini's own counts in provider_metadata show that
// completion_tokens left them out, once, and nowhere else: not where
// Gemini's own total says its candidates count holds them.
func TestGeminiThoughtsApart(t *testing.T) {
	req := Chat(openai.ChatCompletionNewParams{}, true)
	metaTotal := func(candidates, thoughts, total int) string {
		return fmt.Sprintf(`"provider_metadata":{"google":{"usageMetadata":{"thoughtsTokenCount":%d,"promptTokenCount":40,"candidatesTokenCount":%d,"totalTokenCount":%d}},"gateway":{}}`, thoughts, candidates, total)
	}
	meta := func(candidates, thoughts int) string { return metaTotal(candidates, thoughts, 40+candidates+thoughts) }
	for _, tc := range []struct {
		name, delta                   string
		completion, reasoning, total  int
		wantOutput, wantReasoningKept int64
	}{
		{"short thought", meta(14, 12), 14, 12, 54, 26, 12},
		{"long thought, added once", meta(9, 39), 9, 39, 49, 48, 39},
		{"counts of another answer", meta(20, 12), 14, 12, 54, 14, 12},
		{"no metadata", `"content":""`, 14, 12, 54, 14, 12},
		{"no reasoning", meta(14, 0), 14, 0, 54, 14, 0},
		{"reasoning inside, as OpenAI counts", `"provider_metadata":{"openai":{}}`, 14, 12, 54, 14, 12},
		// Gemini's own total the prompt's and the candidates' alone: its
		// candidatesTokenCount holds the thoughts already, as the Gemini
		// API's has been seen to, and so does completion_tokens.
		{"thoughts inside candidates", metaTotal(14, 12, 54), 14, 12, 54, 14, 12},
		{"no total of Gemini's", `"provider_metadata":{"google":{"usageMetadata":{"thoughtsTokenCount":12,"promptTokenCount":40,"candidatesTokenCount":14}}}`, 14, 12, 54, 14, 12},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := fmt.Sprintf(`{"choices":[{"index":0,"delta":{%s},"finish_reason":"stop"}],"usage":{"prompt_tokens":40,"completion_tokens":%d,"total_tokens":%d,"completion_tokens_details":{"reasoning_tokens":%d}}}`,
				tc.delta, tc.completion, tc.total, tc.reasoning)
			ev, err := req.Decode([]byte(data))
			if err != nil {
				t.Fatal(err)
			}
			if !ev.HasUsage || ev.Usage.Output != tc.wantOutput || ev.Usage.Reasoning != tc.wantReasoningKept {
				t.Errorf("usage %v, output %d, reasoning %d; want output %d, reasoning %d", ev.HasUsage, ev.Usage.Output, ev.Usage.Reasoning, tc.wantOutput, tc.wantReasoningKept)
			}
		})
	}
}

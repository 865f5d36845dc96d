package codec

import (
	"fmt"
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestReasoningUnderOutputDetails checks the usage of a chat chunk whose
// reasoning count is under the Responses API's name,
// output_tokens_details (claude-code-router's chunks made from Gemini's
// stream): the reasoning is added to the output where the total shows
// completion_tokens left it out, and only there.
func TestReasoningUnderOutputDetails(t *testing.T) {
	req := Chat(openai.ChatCompletionNewParams{}, true)
	for _, tc := range []struct {
		name                   string
		details                string
		total                  int
		wantOutput, wantReason int64
	}{
		{"thoughts apart", `"output_tokens_details":{"reasoning_tokens":25}`, 41, 32, 25},
		{"thoughts inside completion", `"output_tokens_details":{"reasoning_tokens":5}`, 16, 7, 5},
		{"chat's name wins", `"completion_tokens_details":{"reasoning_tokens":25},"output_tokens_details":{"reasoning_tokens":3}`, 41, 32, 25},
		{"no reasoning", `"output_tokens_details":{"reasoning_tokens":0}`, 16, 7, 0},
		{"not a count", `"output_tokens_details":"25"`, 41, 7, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := fmt.Sprintf(`{"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":7,"total_tokens":%d,%s}}`, tc.total, tc.details)
			ev, err := req.Decode([]byte(data))
			if err != nil {
				t.Fatal(err)
			}
			if !ev.HasUsage || ev.Usage.Output != tc.wantOutput || ev.Usage.Reasoning != tc.wantReason {
				t.Errorf("Decode(%s) usage %v, output %d, reasoning %d; want output %d, reasoning %d", tc.details, ev.HasUsage, ev.Usage.Output, ev.Usage.Reasoning, tc.wantOutput, tc.wantReason)
			}
		})
	}
}

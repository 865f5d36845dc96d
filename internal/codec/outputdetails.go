package codec

import (
	"github.com/openai/openai-go/v3"
	"github.com/tidwall/gjson"
)

// outputDetails is the name the Responses API gives its usage's detail of
// the output (output_tokens_details), which a relay that builds chat
// chunks from another provider's stream may write into a chat usage in
// place of completion_tokens_details: musistudio/llms, the provider layer
// of claude-code-router, writes Gemini's thoughtsTokenCount there and its
// candidatesTokenCount, which leaves the thoughts out, as
// completion_tokens (src/utils/gemini.util.ts, transformResponseOut;
// ai.google.dev/api/generate-content, UsageMetadata).
const outputDetails = "output_tokens_details"

// reasoningTokens returns the reasoning tokens a chat usage u reports:
// completion_tokens_details.reasoning_tokens, else the same count under
// output_tokens_details. The second is looked at only on a usage that
// gives no reasoning count of chat's name, so a usage costs one map
// look-up more.
func reasoningTokens(u openai.CompletionUsage) int64 {
	if r := u.CompletionTokensDetails.ReasoningTokens; r != 0 {
		return r
	}
	f, ok := u.JSON.ExtraFields[outputDetails]
	if !ok {
		return 0
	}
	return gjson.Get(f.Raw(), "reasoning_tokens").Int()
}

package codec

import (
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
)

// chatShapedUsage returns the counts of a response's usage written as the
// chat API writes them, {prompt_tokens, completion_tokens, total_tokens},
// and whether it is so written: with neither input_tokens nor
// output_tokens, and some count among the chat API's. Relays that make
// /v1/responses of an upstream's chat stream set the upstream's usage
// object on response.completed as it is
// (pingmike2/freebuff2api-wokers worker.js before 4579325,
// pipeUpstreamToResponsesStream; #10; decolua/9router#2082), which
// openai-go reads as zero input and output tokens. It is called once, at
// the final event, and only for such a usage.
func chatShapedUsage(res *responses.Response) (Usage, bool) {
	u := &res.Usage.JSON
	if u.InputTokens.Valid() || u.OutputTokens.Valid() {
		return Usage{}, false
	}
	if _, ok := u.ExtraFields["prompt_tokens"]; !ok {
		if _, ok := u.ExtraFields["completion_tokens"]; !ok {
			return Usage{}, false
		}
	}
	var cu openai.CompletionUsage
	if unmarshal([]byte(res.JSON.Usage.Raw()), &cu) != nil || !hasCounts(&cu) {
		return Usage{}, false
	}
	return usageOf(cu), true
}

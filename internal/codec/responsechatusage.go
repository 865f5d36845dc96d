package codec

import "github.com/openai/openai-go/v3/responses"

// chatNamed reports whether u, a response's usage, is written as the chat
// API writes one, {prompt_tokens, completion_tokens, total_tokens}: with
// neither input_tokens nor output_tokens, and prompt_tokens or
// completion_tokens. Relays that make /v1/responses of an upstream's chat
// stream set the upstream's usage object on the response as it is, in
// response.completed and in a whole answer alike
// (pingmike2/freebuff2api-wokers worker.js before 4579325,
// pipeUpstreamToResponsesStream and responsesToNonStream; #10;
// decolua/9router#2082), which openai-go reads as zero input and output
// tokens.
func chatNamed(u *responses.ResponseUsage) bool {
	f := &u.JSON
	if f.InputTokens.Valid() || f.OutputTokens.Valid() {
		return false
	}
	_, prompt := f.ExtraFields["prompt_tokens"]
	_, completion := f.ExtraFields["completion_tokens"]
	return prompt || completion
}

// chatShapedUsage returns the counts of a response's usage written with
// the chat API's names (see chatNamed), read as a chat usage is, and
// whether it is so written and holds a count. It is called once, at the
// final event.
func chatShapedUsage(res *responses.Response) (Usage, bool) {
	if !chatNamed(&res.Usage) {
		return Usage{}, false
	}
	return choiceUsage(res.JSON.Usage.Raw())
}

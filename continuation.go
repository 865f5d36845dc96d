package tokenpace

import (
	"slices"

	"github.com/openai/openai-go/v3"
)

// defaultContinuePrompt is Policy.ContinuePrompt when it is empty.
const defaultContinuePrompt = "Continue exactly where your previous message stops. Do not repeat any of it."

// continuation returns the params of a try that continues the call's
// output so far: the messages, the output as an assistant message and the
// continue prompt, with max_tokens reduced by the tokens already
// delivered. c.mu is held.
func (c *call) continuation(p openai.ChatCompletionNewParams) openai.ChatCompletionNewParams {
	p.Messages = append(slices.Clip(c.params.Messages), openai.AssistantMessage(c.chainText()), openai.UserMessage(c.continuePrompt()))
	n := c.deliveredTokens()
	if p.MaxTokens.Valid() {
		p.MaxTokens = openai.Int(max(1, p.MaxTokens.Value-n))
	}
	if p.MaxCompletionTokens.Valid() {
		p.MaxCompletionTokens = openai.Int(max(1, p.MaxCompletionTokens.Value-n))
	}
	return p
}

// canContinue reports whether a continuation can carry on the call's
// output: not for a completion whose prompt is not one string.
func (c *call) canContinue() bool {
	return c.completion == nil || c.completion.Prompt.OfString.Valid()
}

// deliveredTokens returns the output-bearing chunks the chain delivered
// since its last restart: the tokens a continuation takes off max_tokens.
// c.mu is held.
func (c *call) deliveredTokens() int64 {
	n := int64(0)
	for _, tr := range c.chain[c.kept:] {
		n += int64(tr.a.delivered())
	}
	return n
}

// continuePrompt returns the user message that follows the assistant
// prefix of a continuation.
func (c *call) continuePrompt() string {
	if p := c.r.pol.ContinuePrompt; p != "" {
		return p
	}
	return defaultContinuePrompt
}

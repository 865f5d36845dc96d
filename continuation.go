package tokenpace

import "github.com/tokenpace/tokenpace/internal/codec"

// defaultContinuePrompt is Policy.ContinuePrompt when it is empty.
const defaultContinuePrompt = "Continue exactly where your previous message stops. Do not repeat any of it."

// continuation returns what a try that continues the call's output so
// far carries on from: the output, its tokens (taken off the max tokens),
// its reasoning and the continue prompt; each API's request says how it
// is sent (see codec.Request.For). c.mu is held.
func (c *call) continuation() *codec.Continuation {
	return &codec.Continuation{Text: c.chainText(), Reasoning: c.chainReasoning(), Delivered: c.deliveredTokens(), Prompt: c.continuePrompt()}
}

// canContinue reports whether a continuation can carry on the call's
// output: not for a completion whose prompt is not one string.
func (c *call) canContinue() bool { return c.req.CanContinue() }

// reachedMax reports whether the chain has delivered the request's
// max_tokens (or max_completion_tokens) already, in output-bearing chunks,
// each at least one token: its output is as long as asked, and a
// continuation would make it longer. c.mu is held.
func (c *call) reachedMax() bool {
	max := c.params.MaxCompletionTokens
	if c.params.MaxTokens.Valid() {
		max = c.params.MaxTokens
	}
	return max.Valid() && c.deliveredTokens() >= max.Value
}

// deliveredTokens returns the output-bearing chunks the chain delivered
// since its last restart: the tokens a continuation takes off max_tokens.
// c.mu is held.
func (c *call) deliveredTokens() int64 {
	n := int64(0)
	for _, tr := range c.out.tries[c.out.kept:] {
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

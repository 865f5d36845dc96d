package codec

// PromptCount keeps the prompt count a stream reported, for a later usage
// that reports none. Helicone's AI Gateway, relaying Anthropic's Messages
// stream as chat chunks, sends the prompt count in the usage of its first
// chunk (message_start's) and a usage of the output alone on the finish
// chunk (message_delta's, whose input count it writes as 0):
// Helicone/ai-gateway ai-gateway/src/middleware/mapper/anthropic.rs. No
// prompt has no token, so a prompt count of 0 after a positive one is one
// the server did not count, not a count to take. The zero value is ready
// to use.
type PromptCount struct{ prompt, cached int64 }

// Usage returns u, with the prompt count (and its cached tokens) of the
// last usage that reported one when u's prompt count is 0, and records
// u's when it reports one.
func (p *PromptCount) Usage(u Usage) Usage {
	if u.Prompt > 0 {
		p.prompt, p.cached = u.Prompt, u.Cached
		return u
	}
	if u.Prompt == 0 && p.prompt > 0 {
		u.Prompt = p.prompt
		if u.Cached == 0 {
			u.Cached = p.cached
		}
	}
	return u
}

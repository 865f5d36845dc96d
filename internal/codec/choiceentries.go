package codec

import "github.com/openai/openai-go/v3"

// ChoiceEntries counts a stream's entries per choice, for a server whose
// usage counts the output of one choice of several: mistral.rs. It
// streams a request for n > 1 choices one entry a choice per token it
// samples, the last one with the finish reason (its end-of-sequence
// token's, with no text), and gathers them into chunks of n
// (mistralrs-core/src/sequence.rs, maybe_send_streaming_response); the
// usage on the chunk that a choice's end sends is the usage that choice's
// sequence set, its own output alone beside the prompt
// (pipeline/sampling.rs, Sequence::update_time_info). Usage adds to it
// the entries of the other choices, one token each: at least their
// output, as an entry is held back while its token ends inside a
// character. The zero value counts nothing; Start turns it on.
type ChoiceEntries struct {
	counts []int64 // entries per choice index; nil while off
}

// Start turns counting on for a stream of want choices (a request's
// Choices, at most MaxChoices).
func (e *ChoiceEntries) Start(want int) {
	e.counts = make([]int64, min(max(want, 1), MaxChoices))
}

// Add counts the entries of chunk c. It does nothing while off.
func (e *ChoiceEntries) Add(c *openai.ChatCompletionChunk) {
	if e.counts == nil {
		return // off: every chunk of every other server passes here
	}
	for i := range c.Choices {
		if x := c.Choices[i].Index; x >= 0 && x < int64(len(e.counts)) {
			e.counts[x]++
		}
	}
}

// Usage returns u, the usage on chunk c, once counted (see Add), with
// the output of every choice but the one u is of: the last entry's, the
// one whose sequence sent c. It returns u as it is while off, and for a
// chunk without choices.
func (e *ChoiceEntries) Usage(c *openai.ChatCompletionChunk, u Usage) Usage {
	if e.counts == nil || len(c.Choices) == 0 {
		return u
	}
	own := c.Choices[len(c.Choices)-1].Index
	for x, n := range e.counts {
		if int64(x) != own {
			u.Output += n
		}
	}
	return u
}

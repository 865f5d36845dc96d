package tokenpace

import (
	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace/internal/codec"
)

// settled returns the text that c, a diffusion model's refinement step
// (see codec.Event.Frame) whose first choice brings content, gives the
// milestones: none until the step that finishes the first choice, whose
// text is the answer; the steps before it are noise settling, each the
// whole text so far, which would reach a sentence that is never said and
// give a predicate every step run together. The latest step is kept for
// an answer whose finish reason comes after its last step (see reachEnd).
func (r *reading) settled(content string, c *openai.ChatCompletionChunk) string {
	if content != "" {
		r.frame = content
	}
	for i := range c.Choices {
		if ch := &c.Choices[i]; ch.Index == 0 && codec.Ends(ch) {
			text := r.frame
			r.frame = ""
			return text
		}
	}
	return ""
}

package tokenpace

import (
	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace/internal/codec"
)

// An answer begun again.
//
// Chutes (chutesai/chutes-api, api/chute/util.py, invoke) sends a
// request whose instance fails mid-answer to its next instance, up to
// five, and relays that one's answer after the chunks already sent: the
// caller's stream carries the first answer's start, then a second answer
// whole, under an id of its own, its role again, its text from the start,
// its finish reason and [DONE]. Read as one answer, the text is doubled
// and nothing says so. A chunk whose first choice opens an assistant
// message under a new id, after chunks that carried one id and some
// output, begins the answer again: the stream ends there, cut, the text
// before it kept, so that a Router continues it.
//
// Servers that give every chunk an id of its own (Foundry Local, with
// the role on every delta too) never carry one id twice, and servers
// that send the role on every delta (Z.ai, Volcengine Ark) keep their
// id: neither is read as begun again.

// answerStart follows the ids of a chat stream's chunks to tell a chunk
// that begins the answer again. The zero value is ready to use.
type answerStart struct {
	id     string // the id the chunks carried
	under  int    // how many chunks carried it
	output bool   // some of them carried output
	mixed  bool   // the chunks carried different ids
}

// again reports whether c, the next chunk of a chat stream, which
// carries outputs output-bearing deltas, begins the answer again: its
// first choice opens an assistant message under an id other than the
// one two or more chunks before it carried, with output among them. A
// chunk without an id says nothing.
func (s *answerStart) again(c *openai.ChatCompletionChunk, outputs int) bool {
	if c == nil || c.ID == "" || s.mixed {
		return false
	}
	if s.id == "" || c.ID == s.id {
		s.id, s.under, s.output = c.ID, s.under+1, s.output || outputs > 0
		return false
	}
	if s.under >= 2 && s.output && len(c.Choices) > 0 && c.Choices[0].Index == 0 && c.Choices[0].Delta.Role == "assistant" {
		return true
	}
	s.mixed = true
	return false
}

// begunAgain reports whether ev, the event decoded, is a chat chunk that
// begins the answer again (see answerStart).
func (r *reading) begunAgain(ev *codec.Event) bool {
	c, ok := ev.Orig.(*openai.ChatCompletionChunk)
	return ok && r.start.again(c, ev.Outputs)
}

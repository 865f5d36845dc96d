package tokenpace

import (
	"bytes"
	"fmt"
	"math/bits"

	"github.com/openai/openai-go/v3"
)

// How much memory a server's events may make the client use.
//
// The line limit (WithMaxLineBytes) bounds the bytes of one event, but
// decoding amplifies them: an empty object "{}" in a chunk's choices
// becomes a choice of several hundred bytes. So an event is refused
// (KindTooLarge) before it is decoded when it holds more JSON objects
// than any real one does, and a chunk is refused after it when its choices
// run beyond the request's n or its tool calls beyond maxToolCalls. The
// chunks that wait for the caller count for what they take decoded, not
// their bytes on the wire: chunkCost each (a decoded chat chunk holds
// some 2.5–3 KB, whatever its size in JSON), plus objectCost for every
// JSON object and their data, so that the bound on them (maxUnreadBytes)
// bounds the heap they hold.
const (
	// maxChunkObjects bounds the JSON objects of one chat or completions
	// event: a chunk of a few tokens with their log probabilities holds a
	// few dozen.
	maxChunkObjects = 1 << 12
	// maxResponseObjects bounds the JSON objects of one Responses event:
	// the final one holds the whole output, log probabilities included.
	maxResponseObjects = 1 << 16
	// maxToolCalls bounds the tool calls of one choice's delta, and their
	// index.
	maxToolCalls = 128
	// maxChoices is OpenAI's upper bound on n.
	maxChoices = 128
	// chunkCost and objectCost are what a decoded chunk, and each JSON
	// object in it, count for in the bound on unread chunks, beside
	// their bytes.
	chunkCost  = 2 << 10
	objectCost = 64
)

// bound checks data, one event, against the bound on JSON objects before
// it is decoded, and returns what it counts for in the bound on unread
// chunks.
func (a *attempt) bound(data []byte) (size int, err error) {
	limit := maxChunkObjects
	if a.spec.response != nil {
		limit = maxResponseObjects
	}
	// Braces inside strings count too: an upper bound, exact when the
	// event holds no text with braces. Only an event over the limit is
	// scanned for its objects.
	n := bytes.Count(data, []byte{'{'})
	if n > limit {
		if n = jsonObjects(data); n > limit {
			return 0, a.failure(KindTooLarge, fmt.Sprintf("event of %d JSON objects, over %d", n, limit), nil)
		}
	}
	return chunkCost + len(data) + n*objectCost, nil
}

// jsonObjects counts the objects of a JSON text: its '{' outside strings.
func jsonObjects(data []byte) int {
	n := 0
	in, esc := false, false
	for _, b := range data {
		switch {
		case esc:
			esc = false
		case in && b == '\\':
			esc = true
		case b == '"':
			in = !in
		case !in && b == '{':
			n++
		}
	}
	return n
}

// checkChoices refuses a chunk whose choices run beyond the request's n,
// or whose deltas carry more tool calls than maxToolCalls: what no real
// server sends, and what would be lost or grow without bound downstream
// (openai-go's accumulator drops choice indexes past 127).
func (a *attempt) checkChoices(c *openai.ChatCompletionChunk) error {
	n := int64(a.spec.choices())
	if int64(len(c.Choices)) > n {
		return a.failure(KindTooLarge, fmt.Sprintf("%d choices in one chunk, the request asked for %d", len(c.Choices), n), nil)
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index < 0 || ch.Index >= n {
			return a.failure(KindMalformed, fmt.Sprintf("choice index %d, the request asked for %d", ch.Index, n), nil)
		}
		tc := ch.Delta.ToolCalls
		if len(tc) > maxToolCalls {
			return a.failure(KindTooLarge, fmt.Sprintf("%d tool calls in one delta, over %d", len(tc), maxToolCalls), nil)
		}
		for j := range tc {
			if tc[j].Index < -1 || tc[j].Index >= maxToolCalls {
				return a.failure(KindMalformed, fmt.Sprintf("tool call index %d, over %d", tc[j].Index, maxToolCalls), nil)
			}
		}
	}
	return nil
}

// choices returns how many choices the request asked for (its n), 1 for
// the Responses API or when it did not say.
func (s *attemptSpec) choices() int {
	n := int64(1)
	switch {
	case s.completion != nil:
		n = s.completion.N.Or(1)
	case s.response == nil:
		n = s.params.N.Or(1)
	}
	return int(min(max(n, 1), maxChoices))
}

// choiceSet is a set of choice indexes below maxChoices.
type choiceSet [maxChoices / 64]uint64

// add adds i, if it is below maxChoices.
func (s *choiceSet) add(i int64) {
	if i >= 0 && i < maxChoices {
		s[i/64] |= 1 << (i % 64)
	}
}

// len returns how many indexes s holds.
func (s *choiceSet) len() int { return bits.OnesCount64(s[0]) + bits.OnesCount64(s[1]) }

// finished notes that choice i sent its finish reason: once every choice
// the request asked for has, the answer is complete.
func (a *attempt) finished(i int64) {
	a.done1.add(i)
	if a.done1.len() >= a.spec.choices() {
		a.terminal = true
	}
}

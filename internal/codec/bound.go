package codec

import (
	"bytes"
	"fmt"
	"math/bits"

	"github.com/openai/openai-go/v3"
)

// How much memory a server's events may make the client use.
//
// The line limit bounds the bytes of one event, but decoding amplifies
// them: an empty object "{}" in a chunk's choices becomes a choice of
// several hundred bytes. So an event is refused (TooLarge) before it is
// decoded when it holds more JSON objects than any real one does, and a
// chunk is refused after it when its choices run beyond the request's n or
// its tool calls beyond MaxToolCalls. The chunks that wait for the caller
// count for what they take decoded, not their bytes on the wire (see
// Cost): a decoded chat chunk holds some 2.5–3 KB, whatever its size in
// JSON.
const (
	// maxChunkObjects bounds the JSON objects of one chat or completions
	// event: a chunk of a few tokens with their log probabilities holds a
	// few dozen.
	maxChunkObjects = 1 << 12
	// maxResponseObjects bounds the JSON objects of one Responses event:
	// the final one holds the whole output. Log probabilities count
	// apart (see response.MaxObjects).
	maxResponseObjects = 1 << 16
	// maxOutputTokens is the most output tokens a model writes (128k,
	// GPT-5's limit), and maxTopLogprobs the most alternatives the API
	// gives of each (top_logprobs).
	maxOutputTokens = 128 << 10
	maxTopLogprobs  = 20
	// MaxItems bounds the output items and tools of one Responses event
	// (its objects at eventItemDepth), and the choices, output items and
	// tools of a whole response (see wire.LimitObjects): openai-go
	// decodes each, an empty one too, into some 4 KB (a Responses output
	// item or tool; a whole chat choice some 2 KB), where an object deeper
	// in takes a few hundred bytes. No response holds that many.
	MaxItems = 1 << 12
	// eventItemDepth is the depth of a Responses event's output items and
	// tools: {"response": {"output": [{…}]}}, the event's own object at
	// 0. Log probabilities are at another depth.
	eventItemDepth = 3
	// MaxToolCalls bounds the tool calls of one choice's delta, and their
	// index.
	MaxToolCalls = 128
	// MaxChoices is OpenAI's upper bound on n.
	MaxChoices = 128
	// chunkCost and objectCost are what a decoded chunk, and each JSON
	// object in it, count for in the bound on unread chunks, beside
	// their bytes.
	chunkCost  = 2 << 10
	objectCost = 64
)

// Cost checks data, one event of r, against the bounds on JSON objects
// before it is decoded, and returns what the decoded event counts for in
// a bound on memory: chunkCost, its bytes, and objectCost per object.
func Cost(r Request, data []byte) (int, error) {
	limit := r.MaxObjects()
	// Braces inside strings count too: an upper bound, exact when the
	// event holds no text with braces. Only an event over MaxItems is
	// scanned for its objects: no chat or completions event, and only
	// the largest Responses ones.
	n := bytes.Count(data, []byte{'{'})
	if n > min(limit, MaxItems) {
		var items int
		n, items = jsonObjects(data, eventItemDepth)
		switch {
		case n > limit:
			return 0, &Error{TooLarge: true, Detail: fmt.Sprintf("event of %d JSON objects, over %d", n, limit)}
		case items > MaxItems:
			return 0, &Error{TooLarge: true, Detail: fmt.Sprintf("event of %d output items or tools, over %d", items, MaxItems)}
		}
	}
	return chunkCost + len(data) + n*objectCost, nil
}

// WholeObjects returns how many JSON objects the whole (non-streaming)
// response of r may hold: maxResponseObjects, and, when r asks for log
// probabilities, room for them over each choice's whole output (see
// response.MaxObjects), and over an echoed prompt (see
// echoObjects). A whole response is decoded at once, and each of
// its objects, an empty one too, becomes a choice, an output item or a
// token of kilobytes.
func WholeObjects(r Request) int {
	switch r := r.(type) {
	case response:
		return r.MaxObjects()
	case chat:
		p := r.p
		if !p.Logprobs.Value && !p.TopLogprobs.Valid() {
			return maxResponseObjects
		}
		tokens := p.MaxCompletionTokens.Or(p.MaxTokens.Or(maxOutputTokens))
		return maxResponseObjects + r.Choices()*logprobObjects(tokens, p.TopLogprobs.Or(0))
	case completion:
		if !r.p.Logprobs.Valid() {
			return maxResponseObjects
		}
		// The alternatives of a token are one object (top_logprobs); an
		// echoed prompt's tokens have theirs too.
		return maxResponseObjects + r.Choices()*logprobObjects(r.p.MaxTokens.Or(maxOutputTokens), 0) + r.echo
	}
	return maxResponseObjects
}

// logprobObjects returns the objects the log probabilities of an output
// of tokens hold, top alternatives of each: one per token, and one per
// alternative; tokens at most maxOutputTokens, top at most
// maxTopLogprobs.
func logprobObjects(tokens, top int64) int {
	tokens = min(max(tokens, 0), maxOutputTokens)
	return int(tokens * (1 + min(max(top, 0), maxTopLogprobs)))
}

// jsonObjects counts the objects of a JSON text, its '{' outside
// strings, and those of them at depth (the text's own object at 0).
func jsonObjects(data []byte, depth int) (n, at int) {
	in, esc := false, false
	d := 0 // the objects and arrays open
	for _, b := range data {
		switch {
		case esc:
			esc = false
		case in && b == '\\':
			esc = true
		case b == '"':
			in = !in
		case in:
		case b == '{':
			n++
			if d == depth {
				at++
			}
			d++
		case b == '[':
			d++
		case b == '}' || b == ']':
			d--
		}
	}
	return n, at
}

// checkChoices refuses a chunk whose choices run beyond the request's n
// (n), or whose deltas carry more tool calls than MaxToolCalls: what would
// be lost or grow without bound downstream (openai-go's accumulator drops
// choice indexes past 127). A chunk may hold several entries of the same
// choice, each a piece of its output in order: FastDeploy sends a request
// with its own field max_streaming_response_tokens so, that many tokens a
// chunk as that many entries of index 0 (fastdeploy/entrypoints/openai/
// serving_chat.py and serving_completion.py), which openai-go's
// accumulator joins in order as it joins chunks. So what is bounded is the
// indexes, each below n, and the entries, MaxChoices at most, as many as a
// request's n can make a chunk hold. When one choice was asked for, a
// chunk's only choice is that one whatever its index: Foundry Local until
// 0.7.117 (microsoft/foundry-local#263) and TGI 1.4.0 to 1.4.3
// (huggingface/text-generation-inference#1648) number each chunk's choice
// one more than the last's; its index is set to 0.
func checkChoices(c *openai.ChatCompletionChunk, n int) error {
	if len(c.Choices) > MaxChoices {
		return &Error{TooLarge: true, Detail: fmt.Sprintf("%d choice entries in one chunk, over %d", len(c.Choices), MaxChoices)}
	}
	if n == 1 && len(c.Choices) == 1 {
		c.Choices[0].Index = 0
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index < 0 || ch.Index >= int64(n) {
			// Beside other entries, a choice the request did not ask
			// for is one more choice than it asked for.
			return &Error{TooLarge: len(c.Choices) > 1, Detail: fmt.Sprintf("choice index %d, the request asked for %d", ch.Index, n)}
		}
		tc := ch.Delta.ToolCalls
		if len(tc) > MaxToolCalls {
			return &Error{TooLarge: true, Detail: fmt.Sprintf("%d tool calls in one delta, over %d", len(tc), MaxToolCalls)}
		}
		for j := range tc {
			if tc[j].Index < -1 || tc[j].Index >= MaxToolCalls {
				return &Error{Detail: fmt.Sprintf("tool call index %d, over %d", tc[j].Index, MaxToolCalls)}
			}
		}
	}
	return nil
}

// choices returns n, as a request's n, between 1 and MaxChoices.
func choices(n int64) int { return int(min(max(n, 1), MaxChoices)) }

// Finished is the set of choices that sent their finish reason. The zero
// Finished is empty.
type Finished [MaxChoices / 64]uint64

// Count returns how many choices sent their finish reason.
func (s *Finished) Count() int { return bits.OnesCount64(s[0]) + bits.OnesCount64(s[1]) }

// Has reports whether choice i sent its finish reason.
func (s *Finished) Has(i int64) bool {
	return i >= 0 && i < MaxChoices && s[i/64]&(1<<(i%64)) != 0
}

// Add notes that choice i sent its finish reason, and reports whether
// every choice of want (a request's Choices) has.
func (s *Finished) Add(i int64, want int) bool {
	if i >= 0 && i < MaxChoices {
		s[i/64] |= 1 << (i % 64)
	}
	return s.Count() >= want
}

package main

import (
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace/simulate"
	"github.com/tokenpace/tokenpace/simulate/trace"
)

// Chat framing the simulator counts per message.
const messageOverhead = 4

// tracePrompts makes the requests of a replayed trace: prompts of the
// traced lengths, max_tokens the traced output, and the traced prefix
// sharing. A request whose first d hash blocks are shared with another
// (trace.SharedBlocks) carries them as a system message of d blocks' text,
// each block's text drawn from its hash id alone, so that requests sharing
// blocks send identical tokens and a server's prefix cache sees the traced
// reuse; the rest of its prompt is a user message of its own. Safe for
// concurrent use.
type tracePrompts struct {
	model  string
	tr     *trace.Trace
	shared []int
	seed   uint64
	mu     sync.Mutex
	blocks map[uint64]string
}

func newTracePrompts(model string, tr *trace.Trace, seed uint64) *tracePrompts {
	return &tracePrompts{model: model, tr: tr, shared: tr.SharedBlocks(), seed: seed, blocks: map[uint64]string{}}
}

// params returns request i's parameters.
func (p *tracePrompts) params(i int) openai.ChatCompletionNewParams {
	r := p.tr.Requests[i]
	var msgs []openai.ChatCompletionMessageParamUnion
	rest := r.PromptTokens - promptOverhead
	if d := p.shared[i]; d > 0 {
		// The system message's tokens are the shared prefix's: the
		// blocks' words less the message's framing.
		prefix := min(d*p.tr.BlockTokens, r.PromptTokens-promptOverhead-messageOverhead-1)
		msgs = append(msgs, openai.SystemMessage(p.blockText(r.Blocks[:d], prefix-messageOverhead)))
		rest = r.PromptTokens - prefix - promptOverhead
	}
	msgs = append(msgs, openai.UserMessage(randomWords(rand.New(rand.NewPCG(p.seed, uint64(i))), rest)))
	return openai.ChatCompletionNewParams{Model: p.model, Messages: msgs, MaxTokens: openai.Int(int64(r.OutputTokens))}
}

// blockText returns the text of the blocks ids, words words long.
func (p *tracePrompts) blockText(ids []uint64, words int) string {
	var b strings.Builder
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, id := range ids {
		t, ok := p.blocks[id]
		if !ok {
			t = randomWords(rand.New(rand.NewPCG(p.seed^0x5bd1e995, id)), p.tr.BlockTokens)
			p.blocks[id] = t
		}
		b.WriteString(t)
	}
	s := b.String()
	return s[:min(max(words, 1)*4, len(s))]
}

// randomWords returns n words (one token and four bytes each) drawn by rng.
func randomWords(rng *rand.Rand, n int) string {
	var b strings.Builder
	b.Grow(max(n, 1) * 4)
	for range max(n, 1) {
		b.WriteByte(' ')
		b.WriteString(promptWords[rng.IntN(len(promptWords))])
	}
	return b.String()
}

// schedule returns the offsets from the start at which arrivals come.
func schedule(a []simulate.Arrival) []time.Duration {
	out := make([]time.Duration, len(a))
	for i := range a {
		out[i] = a[i].At
	}
	return out
}

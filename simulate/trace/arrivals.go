package trace

import (
	"strconv"
	"strings"

	"github.com/tokenpace/tokenpace/simulate"
)

// SharedBlocks returns, for each request, how many of its leading Blocks
// it shares with at least one other request of the trace: the prefix a
// cache could serve it (for the first of the requests that share it, once
// another has prefilled it). Without Blocks every count is 0.
func (t *Trace) SharedBlocks() []int {
	seen := map[string]int{}
	key := func(ids []uint64) string {
		var b strings.Builder
		for _, id := range ids {
			b.WriteString(strconv.FormatUint(id, 36))
			b.WriteByte('.')
		}
		return b.String()
	}
	// A trie, flattened: how many requests pass through each prefix.
	for _, r := range t.Requests {
		var b strings.Builder
		for _, id := range r.Blocks {
			b.WriteString(strconv.FormatUint(id, 36))
			b.WriteByte('.')
			seen[b.String()]++
		}
	}
	out := make([]int, len(t.Requests))
	for i, r := range t.Requests {
		d := 0
		for d < len(r.Blocks) && seen[key(r.Blocks[:d+1])] >= 2 {
			d++
		}
		out[i] = d
	}
	return out
}

// PrefixKey names the first n blocks of r, the key under which requests
// sharing them share a cached prefix.
func PrefixKey(r Request, n int) string {
	var b strings.Builder
	b.WriteString("blocks:")
	for i, id := range r.Blocks[:n] {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(strconv.FormatUint(id, 10))
	}
	return b.String()
}

// Arrivals returns the trace as a simulated workload, IDs 1..n in arrival
// order. A request that shares its first d blocks with another (see
// SharedBlocks) gets the prefix key of those blocks and d·BlockTokens
// prefix tokens (at most its prompt): the simulator's prefix cache keys
// whole prefixes, so requests reuse each other's cache when their shared
// prefixes match in full, the common case of a system prompt or a
// conversation's history. A tokenpace CSV's prefix_id shares the first
// half of the prompt, as simulate.ReadTrace reads it.
func (t *Trace) Arrivals() []simulate.Arrival {
	shared := t.SharedBlocks()
	out := make([]simulate.Arrival, len(t.Requests))
	for i, r := range t.Requests {
		req := simulate.Request{ID: uint64(i + 1), PromptTokens: r.PromptTokens, OutputTokens: r.OutputTokens}
		switch {
		case shared[i] > 0:
			req.PrefixKey = PrefixKey(r, shared[i])
			req.PrefixTokens = min(shared[i]*t.BlockTokens, r.PromptTokens)
		case r.Prefix != "":
			req.PrefixKey, req.PrefixTokens = r.Prefix, r.PromptTokens/2
		}
		out[i] = simulate.Arrival{At: r.At, Request: req}
	}
	return out
}

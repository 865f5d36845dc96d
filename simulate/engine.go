package simulate

import (
	"container/list"
	"time"
)

// Engine is the discrete-event model of one serving engine on one
// Deployment: a queue for free slots, continuous batching at step
// boundaries, chunked prefill interleaved with decode, paged KV-cache
// accounting, prefix caching, KV offload or preemption when the cache is
// full, and speculative decoding, behind the serving process's front end
// (Deployment.FrontEndPerRequest and FrontEndPerChunk), which takes each
// request in and writes each chunk to its client beside the steps. Its
// time is virtual (see Scheduler) and every result is deterministic.
//
// An Engine is not safe for concurrent use; each driver owns one. Most
// callers use it through Run (offline), Predict, or the HTTP server.
type Engine struct {
	d    Deployment
	cost costModel

	clock     time.Duration // when the next step may start: the last step's end, or the first arrival when idle
	waiting   []*seq        // FIFO; preempted sequences go back to the front
	running   []*seq        // admitted, in admission order
	byID      map[uint64]*seq
	nRunning  int // running minus cancelled or finished
	used      int // KV blocks held
	capBlocks int
	offBlocks int // blocks past which KVOffload spills
	prefix    map[string]*prefixEntry
	idle      list.List // prefixes no running sequence reads, most recently used first
	idleBlks  int       // blocks the idle prefixes hold; evicted when the cache needs them
	specStep  int64     // expected tokens per verify step, in millionths
	front     frontEnd  // the serving process's work beside the steps

	planned bool
	cur     struct {
		start, end time.Duration
		chunks     []chunk
		cost       StepCost
	}
	stats Stats
}

type seq struct {
	id           uint64
	arrival      time.Duration
	ready        time.Duration // the front end handed it to the engine
	start        time.Duration // first prefill step began
	prompt       int
	output       int
	prefixKey    string
	prefixTokens int
	nextKey      string // Request.NextPrefixKey
	cached       int
	target       int // tokens to prefill before decoding: prompt, or prompt+generated after preemption
	prefilled    int
	generated    int
	blocks       int
	spec         int64        // fractional tokens carried between verify steps, in millionths
	shared       *prefixEntry // the cached prefix s reads; its blocks are not in s.blocks
	started      bool
	decoding     bool
	gone         bool // cancelled or finished; dropped from running at the next compaction
}

// prefixEntry is a cached prompt prefix. Its blocks are shared by the
// running sequences that read it and count once while any does; with none,
// they sit in free blocks and are evicted, least recently used first, when
// the cache needs the room.
type prefixEntry struct {
	key    string
	tokens int           // cached tokens, a whole number of blocks
	refs   int           // running sequences reading the prefix
	pinned int           // blocks counted in Engine.used while refs > 0
	elem   *list.Element // in Engine.idle while refs == 0
}

type chunk struct {
	s *seq
	n int
}

// compile-time check that *Engine is a Scheduler.
var _ Scheduler = (*Engine)(nil)

// NewEngine returns an engine for d after filling in d's defaults; an
// impossible deployment (see Deployment.Resolved) yields an error.
func NewEngine(d Deployment) (*Engine, error) {
	d, err := d.Resolved()
	if err != nil {
		return nil, err
	}
	e := &Engine{
		d:         d,
		cost:      newCostModel(d),
		byID:      make(map[uint64]*seq),
		prefix:    make(map[string]*prefixEntry),
		capBlocks: d.KVCapacityTokens / d.BlockSize,
	}
	e.offBlocks = int(float64(e.capBlocks) * d.OffloadThreshold)
	if d.KVPolicy == KVPreempt {
		e.offBlocks = e.capBlocks
	}
	e.specStep = int64(d.Speculation.TokensPerStep()*1e6 + 0.5)
	e.front.perRequest = max(d.FrontEndPerRequest, 0)
	e.front.perChunk = max(d.FrontEndPerChunk, 0)
	return e, nil
}

// Deployment returns the engine's deployment with its defaults filled in.
func (e *Engine) Deployment() Deployment { return e.d }

// Add implements Scheduler. A prompt or output of fewer than one token
// counts as one.
func (e *Engine) Add(now time.Duration, r *Request) {
	s := &seq{
		id:           r.ID,
		arrival:      now,
		prompt:       max(r.PromptTokens, 1),
		output:       max(r.OutputTokens, 1),
		prefixKey:    r.PrefixKey,
		prefixTokens: r.PrefixTokens,
		nextKey:      r.NextPrefixKey,
	}
	s.target = s.prompt
	if old, ok := e.byID[r.ID]; ok {
		e.drop(old)
	}
	e.front.drop(r.ID)
	s.ready = e.front.admit(now)
	e.byID[r.ID] = s
	e.waiting = append(e.waiting, s)
	e.stats.Waiting = len(e.waiting)
	e.stats.PromptTokens += int64(s.prompt)
	if e.planned && e.cur.start == now {
		e.planned = false // the step has not begun: batch the newcomer in
	}
}

// Cancel implements Scheduler.
func (e *Engine) Cancel(now time.Duration, id uint64) {
	s, ok := e.byID[id]
	if !ok {
		e.front.drop(id)
		return
	}
	e.drop(s)
	e.front.drop(id)
	if e.planned && e.cur.start >= now {
		// The step has not begun (it may be planned for when the front
		// end hands a request over): plan it without s.
		e.planned = false
	}
}

// drop withdraws s from the queue or the batch and frees its blocks.
func (e *Engine) drop(s *seq) {
	delete(e.byID, s.id)
	for i, w := range e.waiting {
		if w == s {
			e.waiting = append(e.waiting[:i], e.waiting[i+1:]...)
			e.stats.Waiting = len(e.waiting)
			return
		}
	}
	if !s.gone {
		s.gone = true
		e.nRunning--
		e.stats.Running = e.nRunning
		e.free(s)
		e.keep(s)
	}
}

// keep leaves what s computed, its prompt and the tokens it generated, in
// the prefix cache under its NextPrefixKey, whether s finished or was cut
// off: a serving engine frees a sequence's blocks into its cache, tail
// first (vLLM's KVCacheManager.free), for the conversation's next turn or
// the same prompt sent again (a Router's restart after a cut stream).
func (e *Engine) keep(s *seq) {
	computed := s.prefilled
	if s.decoding {
		computed = s.prompt + s.generated
	}
	if computed > s.cached {
		e.warm(s.nextKey, computed, true)
	}
}

func (e *Engine) free(s *seq) {
	e.used -= s.blocks
	s.blocks = 0
	if p := s.shared; p != nil {
		p.refs--
		if p.refs == 0 {
			e.used -= p.pinned
			p.pinned = 0
			e.setIdle(p)
		}
		s.shared = nil
	}
	e.updateKVStats()
}

// Next implements Scheduler: the earlier of the next step's end and the
// next chunk the front end finishes writing.
func (e *Engine) Next() (time.Duration, bool) {
	if !e.planned {
		e.plan()
	}
	at, ok := e.front.next()
	if !ok || (e.planned && e.cur.end < at) {
		return e.cur.end, e.planned
	}
	return at, true
}

// AdvanceTo implements Scheduler.
func (e *Engine) AdvanceTo(t time.Duration, emit func(Emission)) {
	for {
		if !e.planned {
			e.plan()
		}
		if at, ok := e.front.next(); ok && at <= t && (!e.planned || at <= e.cur.end) {
			e.front.deliver(emit)
			continue
		}
		if !e.planned || e.cur.end > t {
			return
		}
		e.finish(emit)
	}
}

// StepCost prices one forward step of load l on the engine's deployment.
func (e *Engine) StepCost(l Load) StepCost { return e.cost.step(l) }

// Stats implements Scheduler.
func (e *Engine) Stats() Stats { return e.stats }

// WarmPrefix records that the first tokens of prompts with PrefixKey key
// are in the prefix cache (rounded down to a KV block), as if an earlier
// request had prefilled them: a shared system prompt, say. It does nothing
// when prefix caching is disabled.
func (e *Engine) WarmPrefix(key string, tokens int) { e.warm(key, tokens, false) }

// warm caches tokens of prefix key, as WarmPrefix does; last puts a new
// idle entry at the back of the eviction list, to go first: a finished
// turn kept for a next turn that may never come (a question about a
// shared document is followed by another question, not by this reply),
// whose prompt a real engine's cache holds in the blocks it shares with
// the prefix entry rather than again.
func (e *Engine) warm(key string, tokens int, last bool) {
	if key == "" || e.d.DisablePrefixCaching {
		return
	}
	t := tokens / e.d.BlockSize * e.d.BlockSize
	if t == 0 {
		return
	}
	p := e.prefix[key]
	if p == nil {
		p = &prefixEntry{key: key}
		e.prefix[key] = p
		e.setIdle(p)
	}
	if t <= p.tokens {
		return
	}
	if p.refs > 0 {
		b := t / e.d.BlockSize
		e.used += b - p.pinned
		p.pinned = b
		p.tokens = t
	} else {
		e.unsetIdle(p)
		p.tokens = t
		e.setIdle(p)
		if last {
			e.idle.MoveToBack(p.elem)
		}
	}
	e.evict()
}

// setIdle puts p, which no running sequence reads, at the front of the
// eviction list.
func (e *Engine) setIdle(p *prefixEntry) {
	p.elem = e.idle.PushFront(p)
	e.idleBlks += p.tokens / e.d.BlockSize
}

func (e *Engine) unsetIdle(p *prefixEntry) {
	e.idle.Remove(p.elem)
	p.elem = nil
	e.idleBlks -= p.tokens / e.d.BlockSize
}

// evict drops the least recently used idle prefixes until the blocks in
// use and the idle prefixes fit in the cache together.
func (e *Engine) evict() {
	for e.used+e.idleBlks > e.capBlocks && e.idle.Len() > 0 {
		p := e.idle.Back().Value.(*prefixEntry)
		e.unsetIdle(p)
		delete(e.prefix, p.key)
	}
}

func (e *Engine) blocksFor(tokens int) int {
	return (tokens + e.d.BlockSize - 1) / e.d.BlockSize
}

// plan admits queued requests into free slots and composes the step that
// starts at the clock: every decoding sequence contributes its tokens, then
// prefill chunks fill the rest of the token budget in admission order.
func (e *Engine) plan() {
	if e.nRunning == 0 && len(e.waiting) > 0 {
		e.clock = max(e.clock, e.waiting[0].ready) // idle until the next arrival
	}
	e.admit()
	e.compact()
	load := Load{}
	for _, s := range e.running {
		if s.decoding {
			load.DecodeSeqs++
			load.DecodeContext += int64(s.prompt + s.generated)
		}
	}
	perSeq := 1 + e.d.Speculation.DraftTokens
	load.DecodeTokens = load.DecodeSeqs * perSeq
	budget := e.d.MaxBatchedTokens - load.DecodeTokens
	e.cur.chunks = e.cur.chunks[:0]
	for _, s := range e.running {
		if budget <= 0 {
			break
		}
		if s.decoding {
			continue
		}
		n := min(s.target-s.prefilled, budget)
		budget -= n
		e.cur.chunks = append(e.cur.chunks, chunk{s, n})
		load.PrefillTokens += n
		load.PrefillPairs += prefillPairs(n, s.prefilled)
		load.PrefillContext += int64(s.prefilled)
	}
	if load.DecodeSeqs == 0 && len(e.cur.chunks) == 0 {
		e.planned = false
		return
	}
	if e.used > e.offBlocks {
		load.Offloaded = float64(e.used-e.offBlocks) / float64(e.used)
	}
	e.cur.cost = e.cost.step(load)
	e.cur.start = e.clock
	e.cur.end = e.clock + e.cur.cost.Time
	e.planned = true
}

// cachedPrefix returns the prefix-cache entry that serves most of s's
// prompt and how many of its tokens it serves, in whole blocks and never
// the prompt's last token, which is computed again to give the first
// output token; nil and 0 when none does. The entry is s's shared prefix
// (PrefixKey), or the same prompt an earlier request sent, kept with its
// reply under s's NextPrefixKey.
func (e *Engine) cachedPrefix(s *seq) (*prefixEntry, int) {
	var hit *prefixEntry
	cached := 0
	for _, c := range [...]struct {
		key    string
		tokens int
	}{{s.prefixKey, s.prefixTokens}, {s.nextKey, s.prompt}} {
		p := e.prefix[c.key]
		if p == nil || c.key == "" {
			continue
		}
		if n := max(min(p.tokens, c.tokens, s.prompt-1)/e.d.BlockSize*e.d.BlockSize, 0); n > cached {
			hit, cached = p, n
		}
	}
	return hit, cached
}

// admit moves queued requests that have arrived by the clock into the batch
// while a slot is free and, with KVPreempt, while their prompt's blocks fit.
// A request larger than the whole cache is admitted alone and spills to host
// memory.
func (e *Engine) admit() {
	for len(e.waiting) > 0 && e.nRunning < e.d.MaxRunning {
		s := e.waiting[0]
		if s.ready > e.clock {
			break
		}
		hit, cached := e.cachedPrefix(s)
		pin := 0
		if hit != nil && hit.refs == 0 {
			pin = hit.tokens / e.d.BlockSize
		}
		need := e.blocksFor(s.target) - cached/e.d.BlockSize
		if e.d.KVPolicy == KVPreempt && e.used+need+pin > e.capBlocks && !(e.nRunning == 0 && need+pin > e.capBlocks) {
			break
		}
		e.waiting = e.waiting[1:]
		if hit != nil {
			if hit.refs == 0 {
				e.unsetIdle(hit)
				hit.pinned = pin
				e.used += pin
			}
			hit.refs++
			s.shared = hit
			e.stats.PrefixHits += int64(cached)
		}
		s.cached, s.prefilled = cached, cached
		s.blocks = need
		e.used += need
		e.running = append(e.running, s)
		e.nRunning++
	}
	if len(e.waiting) == 0 {
		e.waiting = e.waiting[:0:0] // let the backing array go
	}
	e.evict()
	e.stats.Waiting = len(e.waiting)
	e.stats.Running = e.nRunning
	e.updateKVStats()
}

// compact drops cancelled and finished sequences from the batch.
func (e *Engine) compact() {
	j := 0
	for _, s := range e.running {
		if !s.gone {
			e.running[j] = s
			j++
		}
	}
	clear(e.running[j:])
	e.running = e.running[:j]
}

// finish ends the planned step: decoders emit their tokens, prefill chunks
// advance and the ones that complete emit their first token, KV blocks grow
// and, with KVPreempt, the newest sequences are evicted if they overflow.
func (e *Engine) finish(emit func(Emission)) {
	at := e.cur.end
	e.clock = at
	e.planned = false
	for _, s := range e.running {
		if s.gone || !s.decoding {
			continue
		}
		n := 1
		if e.specStep != 1e6 {
			s.spec += e.specStep
			n = int(s.spec / 1e6)
			s.spec -= int64(n) * 1e6
		}
		n = min(n, s.output-s.generated)
		em := Emission{ID: s.id, At: at, Tokens: n}
		if s.generated == 0 {
			markFirst(s, &em) // FirstTokenFromDecode: the step after the prefill
		}
		s.generated += n
		e.emitted(s, n, at, em, emit)
	}
	for _, c := range e.cur.chunks {
		s := c.s
		if s.gone {
			continue
		}
		if !s.started {
			s.started = true
			s.start = e.cur.start
		}
		s.prefilled += c.n
		if s.prefilled < s.target {
			continue
		}
		s.decoding = true
		if s.prefixKey != "" && !e.d.DisablePrefixCaching {
			e.WarmPrefix(s.prefixKey, min(s.prefixTokens, s.prompt))
		}
		if e.d.FirstTokenFromDecode && s.generated == 0 {
			continue // the next decode step gives the first token
		}
		em := Emission{ID: s.id, At: at, Tokens: 1}
		if s.generated == 0 {
			markFirst(s, &em)
		}
		s.generated++
		e.emitted(s, 1, at, em, emit)
	}
	e.compact()
	if e.d.KVPolicy == KVPreempt {
		for e.used > e.capBlocks && len(e.running) > 1 {
			e.preempt(e.running[len(e.running)-1])
		}
	}
	e.evict()
	e.stats.Running = e.nRunning
	e.stats.Waiting = len(e.waiting)
	e.updateKVStats()
}

// markFirst marks em as s's first emission, with its queueing and prefill
// times.
func markFirst(s *seq, em *Emission) {
	em.First = true
	em.Queue = s.start - s.arrival
	em.Prefill = em.At - s.start
	em.CachedTokens = s.cached
}

// emitted reports n new tokens of s, retires s if it is done, else grows
// its KV blocks to cover its context.
func (e *Engine) emitted(s *seq, n int, at time.Duration, em Emission, emit func(Emission)) {
	e.stats.GeneratedTotal += int64(n)
	em.Done = s.generated >= s.output
	if em.Done {
		s.gone = true
		e.nRunning--
		e.free(s)
		delete(e.byID, s.id)
		e.keep(s)
	} else if need := e.blocksFor(s.prompt+s.generated) - s.cached/e.d.BlockSize; need > s.blocks {
		e.used += need - s.blocks
		s.blocks = need
	}
	if !e.front.write(em) {
		emit(em)
	}
}

// preempt evicts s: its blocks are freed and it waits at the head of the
// queue to recompute its prompt and the tokens it has generated.
func (e *Engine) preempt(s *seq) {
	e.running = e.running[:len(e.running)-1]
	e.nRunning--
	e.free(s)
	s.decoding = false
	s.cached = 0
	s.prefilled = 0
	s.spec = 0
	s.target = s.prompt + s.generated
	e.waiting = append([]*seq{s}, e.waiting...)
	e.stats.Preemptions++
}

func (e *Engine) updateKVStats() {
	e.stats.KVUsage = float64(min(e.used, e.capBlocks)) / float64(e.capBlocks)
	e.stats.Offloaded = e.d.KVPolicy == KVOffload && e.used > e.offBlocks
}

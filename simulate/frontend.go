package simulate

import "time"

// frontEnd is the serving process's host work outside the engine's steps:
// one process (vLLM's API server, SGLang's TokenizerManager and
// DetokenizerManager, TGI's router, trtllm-serve's Python front) that
// takes each request in before the engine sees it (parsing, chat
// template, tokenizing) and writes each chunk a step produced to its
// client (detokenizing, building and writing the SSE event). It works
// beside the engine, not inside its steps: a step's tokens reach their
// clients no sooner than the front end can write them, and a request
// reaches the engine no sooner than the front end has taken it in, but
// the engine's next step does not wait for either. Its work is done in
// the order it arrives (one event loop), so it queues when the load
// exceeds it.
//
// The zero value does nothing: every request passes at once and every
// emission is delivered at its step's end.
type frontEnd struct {
	perRequest time.Duration // host time to take one request in
	perChunk   time.Duration // host time to write one emission
	free       time.Duration // when the front end is next idle
	pending    []Emission    // written or being written, in order from head; At is when each reaches its client
	head       int           // pending[:head] are delivered, their places free for reuse
}

// keptPending is the most places the queue of written emissions keeps
// once it empties; a larger array (after a burst) is let go.
const keptPending = 4096

// admit returns when a request that reached the server at now reaches the
// engine, after the front end's earlier work and its own.
func (f *frontEnd) admit(now time.Duration) time.Duration {
	if f.perRequest <= 0 {
		return now
	}
	f.free = max(now, f.free) + f.perRequest
	return f.free
}

// write hands em, produced by a step that ended at em.At, to the front
// end; it reports false when the front end costs nothing per chunk and
// em is to be delivered as it is. A first emission's Prefill grows by the
// wait, so that Queue + Prefill stays the time to the first token.
func (f *frontEnd) write(em Emission) bool {
	if f.perChunk <= 0 {
		return false
	}
	at := max(em.At, f.free) + f.perChunk
	f.free = at
	if em.First {
		em.Prefill += at - em.At
	}
	em.At = at
	if f.head > 0 && len(f.pending) == cap(f.pending) {
		// Reuse the delivered places before growing the array.
		n := copy(f.pending, f.pending[f.head:])
		clear(f.pending[n:])
		f.pending, f.head = f.pending[:n], 0
	}
	f.pending = append(f.pending, em)
	return true
}

// next reports when the next written emission reaches its client.
func (f *frontEnd) next() (time.Duration, bool) {
	if f.head == len(f.pending) {
		return 0, false
	}
	return f.pending[f.head].At, true
}

// deliver emits the first written emission.
func (f *frontEnd) deliver(emit func(Emission)) {
	em := f.pending[f.head]
	f.pending[f.head] = Emission{}
	f.head++
	if f.head == len(f.pending) {
		f.pending, f.head = f.pending[:0], 0
		if cap(f.pending) > keptPending {
			f.pending = nil // let a burst's array go
		}
	}
	emit(em)
}

// drop forgets the emissions of request id not yet delivered (its client
// went away, or the id was given to a new request). The time the front
// end spent on them stays spent.
func (f *frontEnd) drop(id uint64) {
	j := f.head
	for _, em := range f.pending[f.head:] {
		if em.ID != id {
			f.pending[j] = em
			j++
		}
	}
	clear(f.pending[j:])
	f.pending = f.pending[:j]
}

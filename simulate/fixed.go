package simulate

import (
	"container/heap"
	"time"
)

// Fixed is a Scheduler with fixed timing: every request emits its first
// token TTFT after it arrives and each further token ITL after the previous
// one, however many requests run at once (no queue, no batching, unlimited
// concurrency). It is what `tokenpace sim --ttft --itl` serves and what most
// client tests need: exact, simple timing.
//
// The zero value emits every token at once (TTFT and ITL of 0). A Fixed is
// not safe for concurrent use; give each model of a Server its own.
type Fixed struct {
	// TTFT is the time from a request's arrival to its first token; zero
	// means at once.
	TTFT time.Duration
	// ITL is the time between consecutive tokens; zero means all tokens
	// come together.
	ITL time.Duration
	// PerRequest, if set, overrides TTFT and ITL for one request; a zero
	// return keeps the field's value. Nil means no overrides.
	PerRequest func(r Request) (ttft, itl time.Duration)

	queue fixedQueue
	reqs  map[uint64]*fixedReq
	stats Stats
}

var _ Scheduler = (*Fixed)(nil)

type fixedReq struct {
	id      uint64
	next    time.Duration // time of the next emission
	itl     time.Duration
	left    int // tokens still to emit
	started bool
	index   int // position in the heap
}

// Add admits r at now.
func (f *Fixed) Add(now time.Duration, r *Request) {
	if f.reqs == nil {
		f.reqs = make(map[uint64]*fixedReq)
	}
	ttft, itl := f.TTFT, f.ITL
	if f.PerRequest != nil {
		t, i := f.PerRequest(*r)
		if t != 0 {
			ttft = t
		}
		if i != 0 {
			itl = i
		}
	}
	left := max(r.OutputTokens, 1)
	q := &fixedReq{id: r.ID, next: now + ttft, itl: itl, left: left}
	f.reqs[r.ID] = q
	heap.Push(&f.queue, q)
	f.stats.Running++
	f.stats.PromptTokens += int64(r.PromptTokens)
}

// Cancel withdraws the request with id.
func (f *Fixed) Cancel(_ time.Duration, id uint64) {
	q, ok := f.reqs[id]
	if !ok {
		return
	}
	heap.Remove(&f.queue, q.index)
	delete(f.reqs, id)
	f.stats.Running--
}

// Next reports the time of the next emission.
func (f *Fixed) Next() (time.Duration, bool) {
	if len(f.queue) == 0 {
		return 0, false
	}
	return f.queue[0].next, true
}

// AdvanceTo emits every token due at or before t, in time order (ties in
// order of arrival of the requests' schedules).
func (f *Fixed) AdvanceTo(t time.Duration, emit func(Emission)) {
	for len(f.queue) > 0 && f.queue[0].next <= t {
		q := f.queue[0]
		e := Emission{ID: q.id, At: q.next, Tokens: 1, First: !q.started}
		q.started = true
		q.left--
		f.stats.GeneratedTotal++
		if q.left == 0 || q.itl == 0 {
			// With no ITL every remaining token comes in this step.
			e.Tokens += q.left
			f.stats.GeneratedTotal += int64(q.left)
			q.left = 0
			e.Done = true
			heap.Pop(&f.queue)
			delete(f.reqs, q.id)
			f.stats.Running--
		} else {
			q.next += q.itl
			heap.Fix(&f.queue, 0)
		}
		emit(e)
	}
}

// Stats reports the running requests and token totals; nothing ever waits.
func (f *Fixed) Stats() Stats { return f.stats }

// fixedQueue is a min-heap of requests by next emission time, then id.
type fixedQueue []*fixedReq

func (h fixedQueue) Len() int { return len(h) }
func (h fixedQueue) Less(i, j int) bool {
	if h[i].next != h[j].next {
		return h[i].next < h[j].next
	}
	return h[i].id < h[j].id
}
func (h fixedQueue) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index = i
	h[j].index = j
}
func (h *fixedQueue) Push(x any) {
	q := x.(*fixedReq)
	q.index = len(*h)
	*h = append(*h, q)
}
func (h *fixedQueue) Pop() any {
	old := *h
	q := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return q
}

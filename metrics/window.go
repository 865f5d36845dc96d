package metrics

import "time"

// windowSlots is how many slots a sliding window is cut into.
const windowSlots = 20

// window counts events and tokens in fixed slots over a sliding window of
// time, in bounded memory. Not safe for concurrent use.
type window struct {
	width time.Duration // of one slot
	slots [windowSlots]slot
}

type slot struct {
	idx              int64 // slot number since the Unix epoch; 0: unused
	requests, tokens float64
}

func newWindow(length time.Duration) window {
	return window{width: max(length/windowSlots, time.Microsecond)}
}

func (w *window) index(at time.Time) int64 { return at.UnixNano() / int64(w.width) }

// add counts requests and tokens at time at. Counts older than the window
// ending at the newest slot seen are dropped.
func (w *window) add(at time.Time, requests, tokens float64) {
	if at.Year() < 1970 || at.Year() > 2200 {
		return // zero or absurd: no slot to put it in
	}
	w.addSlot(slot{idx: w.index(at), requests: requests, tokens: tokens})
}

// rates reports requests and tokens per second over the window that ends
// at now: the slot now falls in, so far, and the whole slots before it,
// but none of it before since (the first count's time; zero for no bound),
// when the counts began later than the window.
func (w *window) rates(now, since time.Time) (requests, tokens float64) {
	if now.Year() < 1970 || now.Year() > 2200 {
		return 0, 0
	}
	end := w.index(now)
	for _, s := range w.slots {
		if s.idx > end-windowSlots && s.idx <= end {
			requests += s.requests
			tokens += s.tokens
		}
	}
	covered := w.width*(windowSlots-1) + time.Duration(now.UnixNano()-end*int64(w.width))
	if d := now.Sub(since); !since.IsZero() && d > 0 && d < covered {
		covered = d
	}
	secs := covered.Seconds()
	return requests / secs, tokens / secs
}

// addSlot adds the counts of s, a slot of this window or of another of the
// same width. Counts older than the window ending at the newest slot seen
// are dropped.
func (w *window) addSlot(s slot) {
	if s.idx <= 0 {
		return
	}
	t := &w.slots[s.idx%windowSlots]
	switch {
	case t.idx > s.idx:
		return
	case t.idx < s.idx:
		*t = slot{idx: s.idx}
	}
	t.requests += s.requests
	t.tokens += s.tokens
}

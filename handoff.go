package tokenpace

import (
	"sync/atomic"
	"time"
)

// The reader role of a plain call's attempt.
//
// Exactly one goroutine at a time reads the body of an attempt and delivers
// its events: the holder of the reader role. A Router's attempts give it
// to a goroutine of their own for their whole life (startAttempt). A plain
// call (callAttempt) gives it to its caller: when the caller waits in take
// with nothing queued, it reads and decodes the body itself, on its own
// goroutine, and the time its own read returned is the arrival time, exact
// since it was waiting. Then the chunk is handed over and the caller is
// away, until its next take.
//
// While it is away, a background reader holds the role: it reads on as a
// Router's attempt does (each chunk stamped when its read returns, the
// queue bounded by maxUnreadBytes, the caller woken when it waits) until
// the caller waits on an empty queue; it then delivers the next chunk,
// gives the role back and parks until it is needed again. It costs two
// wake-ups per chunk, so a caller that has come back within absence
// quickReturns times in a row keeps the role when it leaves, and a timer
// hands the role to the background reader only if it stays away for
// absence (and from then on at once again, until it has proven quick
// anew). The absence counts from the caller's departure, or, when the
// chunk it took had been read already with an earlier one, from that
// read: bytes that came after it may wait unread while the caller works
// on the buffered chunks. A chunk that arrives while such a caller is
// away is stamped when it comes back or when the timer fires: at most
// absence late. The first
// chunk is read by the caller if it calls Next within absence of the
// call's return, as callers do. A caller that keeps up thus reads every
// chunk itself after its first few, with no second goroutine reading, and
// pays a wake-up per chunk only when the chunk is not there yet, as with
// bare openai-go.
//
// The live events of the attempt (first token, output, milestones, end,
// and so the hooks) run on the holder's goroutine: the caller's, inside
// Next, or the background reader's.

// absence is how long a quick caller of a plain call may stay away from
// Next before a background reader takes over the body. A chunk whose bytes
// arrive while it is away is stamped when it comes back, or when the
// background reader takes over: at most absence after its arrival. Longer
// makes the hand-offs to a background reader rarer for a caller that does
// a little work per chunk; shorter bounds the lateness tighter.
const absence = 50 * time.Microsecond

// quickReturns is how many times in a row a caller must have come back
// within absence (per chunk it took) before it keeps the reader role while
// away.
const quickReturns = 4

// readerRole says who reads an attempt's body.
type readerRole uint8

const (
	roleNone       readerRole = iota // nobody: no body yet, or the attempt ended
	roleCaller                       // the consumer, while it waits in take
	roleBackground                   // a background reader
)

// handoff is who holds the reader role of an attempt and what decides
// when it changes hands. The attempt's mu guards it, but for handBack.
type handoff struct {
	inline bool // the caller may hold the role
	// inlined: the holder is the caller, reading in take. Only the
	// holder reads and writes it.
	inlined  bool
	holder   readerRole // who reads the body
	away     bool       // the caller is outside take
	left     time.Time  // when it last left
	leftWith int        // with how many chunks
	// since: bytes may wait unread from then on while the caller is away:
	// when it left, or, when its chunk came from the buffer, the read
	// that filled the buffer (bytes after it wait in the connection).
	since time.Time
	// bufferedAt: the chunk the caller takes came from the buffer; bytes
	// after it may wait unread since then (readRef). Zero when the
	// caller's own read brought it.
	bufferedAt time.Time
	// readRef: since when bytes after the last read may wait unread.
	readRef  time.Time
	armed    bool // the absence timer is pending
	quick    int  // times in a row it came back within absence
	absent   *time.Timer
	resume   chan struct{} // wakes the parked background reader; closed at the end
	handBack atomic.Bool   // the background reader gives the role back
}

// leave notes that the caller is away from take from now on, with n
// chunks. A quick caller keeps the reader role, under the absence timer
// (armed unless it is pending: then it re-arms itself for what remains
// when it fires); else a background reader takes over at once. a.mu is
// held.
func (a *attempt) leave(n int) {
	a.r.away = true
	now := time.Now()
	a.r.left, a.r.leftWith, a.r.since = now, n, now
	if !a.r.bufferedAt.IsZero() {
		a.r.since, a.r.bufferedAt = a.r.bufferedAt, time.Time{}
	}
	if a.r.holder == roleCaller && a.rd.lastRead().Before(a.r.since) {
		a.r.since = a.rd.lastRead() // bytes after the last read wait since it returned
	}
	switch {
	case a.r.holder != roleCaller:
	case a.r.quick >= quickReturns && now.Sub(a.r.since) < absence:
		a.arm(absence - now.Sub(a.r.since))
	default:
		a.toBackground()
	}
}

// leaveFirst notes that the caller is away until its first take: it keeps
// the reader role under the absence timer, so that a caller that calls
// Next at once reads the first chunk itself. a.mu is held.
func (a *attempt) leaveFirst() {
	a.r.away = true
	now := time.Now()
	a.r.left, a.r.leftWith, a.r.since = now, 1, now
	a.arm(absence)
}

// back notes that the caller came back to take at now. It was quick if it
// was away for less than absence per chunk it took.
func (h *handoff) back(now time.Time) {
	h.away = false
	if h.quickSince(now) {
		h.quick++
	} else {
		h.quick = 0
	}
}

// quickSince reports whether the caller, away until now, has been away for
// less than absence per chunk it took when it left.
func (h *handoff) quickSince(now time.Time) bool {
	return now.Sub(h.left) < absence*time.Duration(h.leftWith)
}

// arm arms the absence timer to fire after d, unless it is pending: it
// then fires no later than d from now, since it was armed at an earlier
// departure, and re-arms itself for what remains. a.mu is held.
func (a *attempt) arm(d time.Duration) {
	if a.r.armed {
		return
	}
	a.r.armed = true
	if a.r.absent == nil {
		a.r.absent = time.AfterFunc(d, a.absenceOver)
		return
	}
	a.r.absent.Reset(d)
}

// absenceOver runs when the absence timer fires: if the caller holds the
// reader role and has been away for absence, the background reader takes
// over. The caller stays quick if it is away for a batch of chunks and
// still within absence per chunk.
func (a *attempt) absenceOver() {
	a.mu.Lock()
	a.r.armed = false
	if a.r.holder != roleCaller || !a.r.away {
		a.mu.Unlock()
		return
	}
	if d := time.Since(a.r.since); d < absence {
		// It came back and left again since the timer was armed.
		a.r.armed = true
		a.r.absent.Reset(absence - d)
		a.mu.Unlock()
		return
	}
	if !a.r.quickSince(time.Now()) {
		a.r.quick = 0
	}
	a.toBackground()
	a.mu.Unlock()
}

// toBackground gives the reader role to the attempt's background reader:
// a goroutine started the first time, parked in between. a.mu is held.
func (a *attempt) toBackground() {
	a.r.holder = roleBackground
	if a.r.resume == nil {
		a.r.resume = make(chan struct{}, 1)
		go a.background()
		return
	}
	a.r.resume <- struct{}{}
}

// background is the background reader: it reads while it holds the reader
// role, parks in between, and returns once the attempt has ended.
func (a *attempt) background() {
	for a.readBackground() {
		if _, ok := <-a.r.resume; !ok {
			return
		}
	}
}

// readBackground reads the body as the holder of the reader role until the
// caller wants it back, and reports true then; or until the stream ends,
// and reports false.
func (a *attempt) readBackground() bool {
	a.r.inlined = false
	for {
		reads := a.rd.reads()
		if !a.step() {
			break
		}
		if !a.r.handBack.Load() {
			continue
		}
		// The chunk just delivered went to a caller that waited for it:
		// the caller keeps up, and reads on itself. If that chunk came
		// from the buffer, bytes after the read that filled it may wait
		// from then on.
		a.mu.Lock()
		a.r.handBack.Store(false)
		if a.r.away && a.r.quick < quickReturns {
			// The caller took the chunk and left already, and is not
			// quick: keep reading for it (see leave).
			a.mu.Unlock()
			continue
		}
		a.r.holder = roleCaller
		fromBuffer := a.rd.reads() == reads
		if !fromBuffer || a.r.readRef.IsZero() {
			a.r.readRef = a.rd.lastRead()
		}
		if fromBuffer && !a.r.away {
			a.r.bufferedAt = a.r.readRef
		}
		if a.r.away {
			if ref := a.r.readRef; fromBuffer && ref.Before(a.r.since) {
				a.r.since = ref
			} else if last := a.rd.lastRead(); last.Before(a.r.since) {
				a.r.since = last
			}
			a.arm(max(absence-time.Since(a.r.since), 0))
		} else {
			a.signal() // it came back, and waits again
		}
		a.mu.Unlock()
		return true
	}
	a.finishBody()
	return false
}

// readWaited is how long a read must have taken to count as one that
// waited for its bytes: a shorter one found them there (see takeInline).
const readWaited = absence / 5

// takeInline is take for an attempt whose caller may hold the reader role:
// it reads the body itself while it waits, unless a background reader
// holds the role; then it waits for its chunks, and the role comes back.
func (a *attempt) takeInline(buf []arrived) ([]arrived, error) {
	a.mu.Lock()
	a.r.back(time.Now())
	if a.r.armed && a.r.absent.Stop() {
		// Back within absence: the timer of its departure has nothing
		// to do; leave arms it anew. (Stopped late, it finds the caller
		// here and returns.)
		a.r.armed = false
	}
	for {
		if p := a.q.queued(); len(p) > 0 {
			batch := a.q.handOver(p, buf)
			stopped := a.r.holder == roleCaller && a.ctx.Err() != nil
			if stopped {
				a.r.holder = roleNone
			} else {
				a.leave(len(batch))
			}
			a.mu.Unlock()
			if stopped {
				a.endStopped()
			}
			return batch, nil
		}
		if a.ended {
			err := a.t.Err
			a.r.away = true
			a.mu.Unlock()
			return nil, err
		}
		if a.r.holder != roleCaller {
			// A background reader reads: wait for its next chunk, or its end,
			// after which it hands the role back.
			a.waiting = true
			a.mu.Unlock()
			<-a.wake
			a.mu.Lock()
			continue
		}
		a.mu.Unlock()
		if a.ctx.Err() != nil {
			a.mu.Lock()
			a.r.holder = roleNone
			a.mu.Unlock()
			a.endStopped()
		} else {
			a.r.inlined = true
			reads, start := a.rd.reads(), time.Now()
			more := a.step()
			switch {
			case a.rd.reads() != reads:
				// Bytes after this read wait from its time on; or, if it
				// did not wait for its bytes, from when the caller left:
				// they may have come with these, beyond what one read
				// takes.
				a.r.readRef = a.rd.lastRead()
				if a.r.readRef.Sub(start) < readWaited {
					a.r.readRef = a.r.since
					if a.rd.buffered() {
						// It brought more than this chunk: a burst, of
						// which more than one read takes may wait too.
						a.r.bufferedAt = a.r.readRef
					}
				}
			case more:
				// The chunk was read with an earlier one: bytes after that
				// read may wait unread (see leave).
				a.r.bufferedAt = a.r.readRef
			}
			if !more {
				a.finishBody()
			}
		}
		a.mu.Lock()
	}
}

// finishBody closes the body of an attempt whose stream has ended and
// releases it. After a clean end the rest of the body is drained on a
// goroutine of its own, so that a caller that read the end is not held up.
func (a *attempt) finishBody() {
	if a.rd.endedClean() && a.r.inlined {
		go func() {
			a.closeBody(true)
			a.release()
		}()
		return
	}
	a.closeBody(a.rd.endedClean())
	a.release()
}

// endStopped ends an attempt that was stopped while no read was under way,
// on the goroutine that found it so, and releases it.
func (a *attempt) endStopped() {
	a.end(a.failure(KindReset, "", nil), time.Now())
	a.closeBody(false)
	a.release()
}

package tokenpace

import (
	"sync"
	"time"

	"github.com/sony/gobreaker/v2"
)

// rampShare returns the share of calls a route receives since elapsed
// after its breaker closed, over a ramp of period: rising linearly from
// near 0 to 1; 1 without a ramp or once it is over.
func rampShare(elapsed, period time.Duration) float64 {
	if period <= 0 || elapsed >= period {
		return 1
	}
	return max(float64(elapsed), 0) / float64(period)
}

// ramp gives a route whose breaker closed after being open a share of
// calls rising over a period (BreakerSettings.Ramp) instead of all of
// them at once. It learns the breaker's state from what admission sees:
// a refusal (open, or half-open with its probes out), then a closed
// state. The share is dealt out exactly, not drawn: with share s, the
// route takes a call whenever the sum of the shares seen reaches the next
// whole number. It is safe for concurrent use.
type ramp struct {
	mu       sync.Mutex
	wasOpen  bool      // a refusal was seen since the last closed state
	closedAt time.Time // when the breaker was seen closed after one; zero: no ramp running
	credit   float64
}

// refused records that the route's breaker refused a call.
func (r *ramp) refused() {
	r.mu.Lock()
	r.wasOpen = true
	r.mu.Unlock()
}

// admitAt reports whether the route takes a call at now, its breaker in
// state (which allowed the call), over a ramp of period.
func (r *ramp) admitAt(now time.Time, state gobreaker.State, period time.Duration) bool {
	if period <= 0 {
		return true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if state != gobreaker.StateClosed {
		if state == gobreaker.StateHalfOpen {
			r.wasOpen = true // a probe: the ramp starts once it closes
		}
		return true
	}
	if r.wasOpen {
		r.wasOpen, r.closedAt, r.credit = false, now, 0
	}
	if r.closedAt.IsZero() {
		return true
	}
	s := rampShare(now.Sub(r.closedAt), period)
	if s >= 1 {
		r.closedAt = time.Time{}
		return true
	}
	r.credit += s
	if r.credit >= 1 {
		r.credit--
		return true
	}
	return false
}

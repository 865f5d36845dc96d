package fleet

import (
	"slices"
	"testing"
	"time"
)

// A lease never holds more than its size: what a grant or a cancel would
// add beyond it goes back to Redis, as does what it holds at close.
func TestLeaseHoldsAtMostItsSize(t *testing.T) {
	var back [][]int64
	l := newLease(2, time.Hour, func(u []int64) { back = append(back, slices.Clone(u)) }, nil)
	now := time.Now()
	size := []int64{4, 400}
	l.grant(now, []int64{4, 400}, size)
	epoch, ok := l.take(now, []int64{1, 100})
	if !ok {
		t.Fatalf("take(1, 100) from a lease of %v = false, want true", size)
	}
	l.grant(now, []int64{1, 100}, size) // topped up meanwhile
	l.put(epoch, []int64{1, 100})       // the cancel would make it 5, 500
	l.grant(now, []int64{2, 0}, size)
	if _, ok := l.take(now, []int64{5, 1}); ok {
		t.Fatalf("take(5, 1) from a lease of %v = true, want false", size)
	}
	l.close()
	want := [][]int64{{1, 100}, {2, 0}, {4, 400}}
	if !slices.EqualFunc(back, want, slices.Equal) {
		t.Fatalf("units given back = %v, want %v", back, want)
	}
	if _, ok := l.take(now, []int64{1, 1}); ok {
		t.Fatalf("take(1, 1) after close = true, want false")
	}
	if x := l.ask(size); x != nil {
		t.Fatalf("ask(%v) after close = %v, want nil (nothing to lease)", size, x)
	}
}

// A cancel from an expired lease goes back to Redis, not into the next.
func TestLeaseCancelAfterExpiry(t *testing.T) {
	var back [][]int64
	l := newLease(1, time.Hour, func(u []int64) { back = append(back, slices.Clone(u)) }, nil)
	now := time.Now()
	l.grant(now, []int64{3}, []int64{3})
	epoch, _ := l.take(now, []int64{1})
	l.mu.Lock()
	units := l.drain() // what expire does once the ttl passed
	l.mu.Unlock()
	l.give(units)
	l.grant(now, []int64{3}, []int64{3})
	l.put(epoch, []int64{1})
	want := [][]int64{{2}, {1}}
	if !slices.EqualFunc(back, want, slices.Equal) {
		t.Fatalf("units given back = %v, want %v", back, want)
	}
	l.close()
}

//go:build linux

package simulate

import (
	"testing"
	"time"
)

// The precise timer goes off no earlier than it was set for, a reset
// replaces the earlier setting, and stop disarms it.
func TestPreciseTimer(t *testing.T) {
	a, err := newPreciseTimer()
	if err != nil {
		t.Fatalf("newPreciseTimer: %v", err)
	}
	defer a.close()
	for _, d := range []time.Duration{0, time.Microsecond, 300 * time.Microsecond, 2 * time.Millisecond} {
		start := time.Now()
		a.reset(time.Hour)
		a.reset(d) // replaces the hour
		<-a.c()
		if got := time.Since(start); got < d {
			t.Errorf("reset(%v) went off after %v, want at least %v", d, got, d)
		}
	}
	// A stopped timer delivers nothing, even once a later, shorter
	// setting has gone off.
	a.reset(time.Millisecond)
	a.stop()
	a.reset(5 * time.Millisecond)
	<-a.c()
	select {
	case <-a.c():
		t.Errorf("a stopped setting went off")
	default:
	}
}

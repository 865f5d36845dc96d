package ttft

import (
	"testing"
	"time"
)

// TestModel: with TTFT growing by 1 ms per prompt token over 10 ms, the
// line predicts an unseen length, and the percentiles are those of the
// window; an empty model has neither.
func TestModel(t *testing.T) {
	var m Model
	if _, ok := m.Predict(100); ok {
		t.Fatal("Predict on an empty model: ok = true")
	}
	if _, n := m.Percentile(0.5); n != 0 {
		t.Fatalf("Percentile on an empty model: n = %d", n)
	}
	for i := range 2 * Window {
		p := 100 + i%50
		m.Observe(p, 10*time.Millisecond+time.Duration(p)*time.Millisecond)
	}
	if got, ok := m.Predict(1000); !ok || got < 1009*time.Millisecond || got > 1011*time.Millisecond {
		t.Errorf("Predict(1000) = %v, %v; want 1.01s, true", got, ok)
	}
	if got, n := m.Percentile(1); n != Window || got != 159*time.Millisecond {
		t.Errorf("Percentile(1) = %v over %d; want 159ms over %d", got, n, Window)
	}
	if got, _ := m.Percentile(0.01); got != 110*time.Millisecond {
		t.Errorf("Percentile(0.01) = %v; want 110ms", got)
	}
	m.Observe(10, 0) // ignored: no TTFT
	if _, n := m.Percentile(0.5); n != Window {
		t.Errorf("a zero TTFT was counted: n = %d", n)
	}
}

package tokenpace

import (
	"testing"
	"time"

	"github.com/tokenpace/tokenpace/internal/ratelimit"
)

// TestServerLimitsCounts: admissions after the request whose response
// reported count against what it said remains; an older report does not
// replace a newer one; the window opens again at its reset.
func TestServerLimitsCounts(t *testing.T) {
	now := time.Date(2026, 12, 4, 6, 0, 0, 0, time.UTC)
	var s serverLimits
	_, t1 := s.reserveAt(now, 10)
	_, t2 := s.reserveAt(now, 10)
	_, t3 := s.reserveAt(now, 10)
	// t2's response: 2 requests left for 1 s; t3 was admitted after it.
	t2.report(now, ratelimit.Report{HasRequests: true, Requests: 2, RequestsReset: time.Second})
	if d, _ := s.reserveAt(now, 10); d != 0 {
		t.Errorf("delay with 2 left and 1 counted = %v, want 0", d)
	}
	if d, tk := s.reserveAt(now, 10); d != time.Second {
		t.Errorf("delay with 2 left and 2 counted = %v, want 1s", d)
	} else {
		tk.cancel()
	}
	// t1's report is older than t2's: ignored.
	t1.report(now, ratelimit.Report{HasRequests: true, Requests: 100, RequestsReset: time.Second})
	if d, tk := s.reserveAt(now.Add(500*time.Millisecond), 1); d != 500*time.Millisecond {
		t.Errorf("delay after an older report = %v, want 500ms", d)
	} else {
		tk.cancel()
	}
	if d, _ := s.reserveAt(now.Add(time.Second), 1); d != 0 {
		t.Errorf("delay at the reset = %v, want 0", d)
	}
	// A 429's Retry-After holds every request until it passes.
	t3.report(now.Add(time.Second), ratelimit.Report{RetryAfter: 2 * time.Second})
	if d, _ := s.reserveAt(now.Add(2*time.Second), 1); d != time.Second {
		t.Errorf("delay under Retry-After = %v, want 1s", d)
	}
}

// TestServerLimitsTokens: the token window holds a request whose tokens
// do not fit in what remains until its reset, and lets a smaller one
// through.
func TestServerLimitsTokens(t *testing.T) {
	now := time.Date(2026, 12, 4, 6, 0, 0, 0, time.UTC)
	var s serverLimits
	_, t1 := s.reserveAt(now, 100)
	t1.report(now, ratelimit.Report{HasTokens: true, Tokens: 150, TokensReset: 20 * time.Millisecond})
	if d, tk := s.reserveAt(now, 200); d != 20*time.Millisecond {
		t.Errorf("delay of 200 tokens with 150 left = %v, want 20ms", d)
	} else {
		tk.cancel()
	}
	if d, _ := s.reserveAt(now, 150); d != 0 {
		t.Errorf("delay of 150 tokens with 150 left = %v, want 0", d)
	}
	if d, _ := s.reserveAt(now, 1); d != 20*time.Millisecond {
		t.Errorf("delay of 1 token with none left = %v, want 20ms", d)
	}
}

func TestRampShare(t *testing.T) {
	tests := []struct {
		elapsed, period time.Duration
		want            float64
	}{
		{0, time.Second, 0}, {250 * time.Millisecond, time.Second, 0.25}, {time.Second, time.Second, 1},
		{2 * time.Second, time.Second, 1}, {time.Second, 0, 1}, {-time.Second, time.Second, 0},
	}
	for _, tt := range tests {
		if got := rampShare(tt.elapsed, tt.period); got != tt.want {
			t.Errorf("rampShare(%v, %v) = %v, want %v", tt.elapsed, tt.period, got, tt.want)
		}
	}
}

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

// TestServerLimitsRefill: a window whose size is known refills steadily
// from what was left to its size until its reset: with 30,000 tokens of
// which 5,000 are left and 50 s to the reset (500 a second), 10,000
// tokens wait 10 s from the report, and 10,000 more, with the first
// counted, 30 s; a request that only fits once the window is full waits
// for the reset, no later. Without the size, a request waits for the
// reset.
func TestServerLimitsRefill(t *testing.T) {
	now := time.Date(2026, 12, 4, 6, 0, 0, 0, time.UTC)
	report := func(limit int) *serverLimits {
		var s serverLimits
		_, tk := s.reserveAt(now, 25000)
		tk.report(now, ratelimit.Report{HasTokens: true, Tokens: 5000, TokensReset: 50 * time.Second, TokensLimit: limit})
		return &s
	}
	s := report(30000)
	tests := []struct {
		at     time.Duration
		tokens int
		keep   bool
		want   time.Duration
	}{
		{0, 5000, false, 0},
		{2 * time.Second, 10000, true, 8 * time.Second},
		{3 * time.Second, 10000, true, 27 * time.Second},
		{4 * time.Second, 10000, false, 46 * time.Second}, // 35,000 refilled: past the reset
		{49 * time.Second, 100000, false, time.Second},
	}
	for _, tt := range tests {
		got, tk := s.reserveAt(now.Add(tt.at), tt.tokens)
		if got != tt.want {
			t.Errorf("delay of %d tokens at %v = %v, want %v", tt.tokens, tt.at, got, tt.want)
		}
		if !tt.keep {
			tk.cancel()
		}
	}
	if got, _ := report(0).reserveAt(now, 10000); got != 50*time.Second {
		t.Errorf("delay of 10,000 tokens without the size = %v, want 50s", got)
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

package tokenpace_test

import (
	"testing"
	"time"

	"github.com/tokenpace/tokenpace"
)

// TestTPOTEndsAtLastToken checks TPOT's definition on hand-built
// timelines: (E2E − TTFT) / (OutputTokens − 1) with the end taken at the
// last token, so that the wait for the usage chunk, [DONE] or the body's
// end after it does not count as decoding.
func TestTPOTEndsAtLastToken(t *testing.T) {
	sent := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return sent.Add(time.Duration(ms) * time.Millisecond) }
	tests := []struct {
		name string
		t    tokenpace.Timing
		want time.Duration
	}{
		{"end at the last token", tokenpace.Timing{Sent: sent, Chunks: []time.Time{at(100), at(120), at(140)}, LastChunk: at(140), End: at(140), OutputTokens: 3}, 20 * time.Millisecond},
		// 500 ms between the last token and the end: (E2E − TTFT) / 2 would be 270 ms.
		{"slow end after the last token", tokenpace.Timing{Sent: sent, Chunks: []time.Time{at(100), at(120), at(140)}, LastChunk: at(140), End: at(640), OutputTokens: 3}, 20 * time.Millisecond},
		{"chunks of two tokens", tokenpace.Timing{Sent: sent, Chunks: []time.Time{at(100), at(140)}, LastChunk: at(140), End: at(150), OutputTokens: 5}, 10 * time.Millisecond},
		{"one token", tokenpace.Timing{Sent: sent, Chunks: []time.Time{at(100)}, LastChunk: at(100), End: at(300), OutputTokens: 1}, 0},
	}
	for _, tt := range tests {
		if got := tt.t.TPOT(); got != tt.want {
			t.Errorf("%s: TPOT() = %v, want %v (E2E %v, TTFT %v)", tt.name, got, tt.want, tt.t.E2E(), tt.t.TTFT())
		}
	}
}

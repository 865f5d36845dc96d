package main

import (
	"strings"
	"testing"
)

// A search that Ctrl-C ended says so: its verdict blamed the step limit
// ("every rate met the SLO, up to 2 req/s: the step limit ended the
// search before a miss") when --max-steps was 24 and two steps had run.
func TestSearchRateVerdictSaysItWasInterrupted(t *testing.T) {
	for _, tc := range []struct {
		name     string
		capacity float64
		stopAt   int // the step measure is interrupted at
		want     string
	}{
		{"while doubling", 1e9, 3, "up to 2 req/s"},
		{"while bisecting", 13, 8, "12 req/s meets the SLO and 14 misses it"},
		{"before any step", 13, 1, "no step completed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			s := searchRate(func(r float64) (rateStep, bool) {
				n++
				return rateStep{Rate: r, Meets: r <= tc.capacity}, n < tc.stopAt
			}, 1, 0.05, 0.99, 24)
			if !strings.Contains(s.Verdict, "interrupted") || strings.Contains(s.Verdict, "step limit") || !strings.Contains(s.Verdict, tc.want) {
				t.Errorf("searchRate interrupted at step %d: verdict = %q, want it to say it was interrupted, not the step limit, and %q", tc.stopAt, s.Verdict, tc.want)
			}
		})
	}
}

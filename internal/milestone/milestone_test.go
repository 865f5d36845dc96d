package milestone

import (
	"strings"
	"testing"
	"time"
)

// TestTracker feeds deltas one per millisecond and checks when each
// milestone is reported: a terminator counts once white space (or the end)
// confirms it, with the terminator's time; a rune split across deltas is
// read whole; a predicate sees the text so far.
func TestTracker(t *testing.T) {
	t0 := time.Unix(0, 0)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	tests := []struct {
		name   string
		deltas []string
		want   map[string]time.Time
	}{
		{"sentence confirmed by the next space", []string{"Hello", " there.", " How", "\nare"},
			map[string]time.Time{FirstSentence: ms(1), FirstLine: ms(3), "how": ms(2)}},
		{"decimal point, then a quoted end", []string{"Pi is 3", ".14 ", "\"roughly", ".\"", " Yes"},
			map[string]time.Time{FirstSentence: ms(3), FirstLine: ms(5)}},
		{"full-width terminator split across deltas", []string{"你好\xe3\x80", "\x82再见"},
			map[string]time.Time{FirstSentence: ms(1), FirstLine: ms(2)}},
		{"no terminator: the end completes both", []string{"just", " words"},
			map[string]time.Time{FirstSentence: ms(2), FirstLine: ms(2)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := map[string]time.Time{}
			reach := func(name string, at time.Time) {
				if _, dup := got[name]; dup {
					t.Errorf("%s reported twice", name)
				}
				got[name] = at
			}
			tr := New([]Predicate{{Name: "how", Reached: func(text string) bool { return strings.Contains(text, "How") }}})
			for i, d := range tt.deltas {
				tr.Add(d, ms(i), reach)
			}
			tr.End(ms(len(tt.deltas)), reach)
			if len(got) != len(tt.want) {
				t.Errorf("reported %v, want %v", got, tt.want)
			}
			for name, want := range tt.want {
				if got[name] != want {
					t.Errorf("%s at %v, want %v", name, got[name].Sub(t0), want.Sub(t0))
				}
			}
			// After the end only an unmet predicate is pending.
			if _, met := got["how"]; tr.Pending() == met {
				t.Errorf("Pending() = %v with the predicate met: %v", tr.Pending(), met)
			}
		})
	}
}

package tokenpace_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tokenpace/tokenpace"
)

// TestProbationMilestoneAsTheCallerSawIt: a milestone reached while the
// stream is held on probation reaches the caller with the held output, at
// the commit. "big" answers "Big one. Big two." from 50 ms, a token every
// 20 ms: its first sentence is complete at 70 ms, and it is committed with
// its third token, at 90 ms: Timing and the FirstToken and Milestone hooks
// all say the commit. Held until its end (110 ms, short of 1000 tokens),
// it reaches no hook, as documented, and Timing says its end.
func TestProbationMilestoneAsTheCallerSawIt(t *testing.T) {
	tests := []struct {
		name  string
		p     tokenpace.Probation
		want  time.Duration // when the caller received the first sentence, after Sent
		hooks bool          // the hooks are called
	}{
		{"tokens", tokenpace.Probation{Tokens: 3}, 90 * msec, true},
		{"held to the end", tokenpace.Probation{Tokens: 1000}, 110 * msec, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var mu sync.Mutex
				var seen, firsts []time.Duration
				hooks := tokenpace.Hooks{FirstToken: func(_ context.Context, fi tokenpace.FirstTokenInfo) {
					mu.Lock()
					defer mu.Unlock()
					firsts = append(firsts, fi.TTFT)
				}, Milestone: func(_ context.Context, mi tokenpace.MilestoneInfo) {
					if mi.Name == tokenpace.MilestoneFirstSentence {
						mu.Lock()
						defer mu.Unlock()
						seen = append(seen, mi.Elapsed)
					}
				}}
				r := probationRouter(t, tt.p, false, hooks)
				s := r.NewStreaming(context.Background(), chat("big", 16))
				if text := readAll(t, s); text != "Big one. Big two." || s.Err() != nil {
					t.Fatalf("caller got %q, %v; want big's answer", text, s.Err())
				}
				tm := s.Timing()
				if got := tm.Chunks[0].Sub(tm.Sent); got != tt.want {
					t.Fatalf("caller's first chunk after %v, want %v (the commit)", got, tt.want)
				}
				if got, ok := tm.Milestone(tokenpace.MilestoneFirstSentence); !ok || got != tt.want {
					t.Errorf("Milestone(first_sentence) = %v, %v; want %v, true", got, ok, tt.want)
				}
				synctest.Wait()
				mu.Lock()
				defer mu.Unlock()
				if !tt.hooks {
					if len(firsts)+len(seen) != 0 {
						t.Errorf("FirstToken hook calls %v, Milestone hook calls %v; want none", firsts, seen)
					}
					return
				}
				if len(firsts) != 1 || firsts[0] != tt.want {
					t.Errorf("FirstToken hook calls: %v, want one at %v", firsts, tt.want)
				}
				if len(seen) != 1 || seen[0] != tt.want {
					t.Errorf("Milestone hook calls for the first sentence: %v, want one at %v", seen, tt.want)
				}
			})
		})
	}
}

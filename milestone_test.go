package tokenpace_test

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// TestMilestones checks that the first sentence, the first line and a
// user predicate are each stamped with the arrival of the chunk that
// completed them, and reported live through Hooks.
func TestMilestones(t *testing.T) {
	const (
		ttft = 100 * time.Millisecond
		itl  = 10 * time.Millisecond
	)
	tests := []struct {
		reply string
		want  map[string]time.Duration // milestone → arrival, from Sent
	}{
		// Tokens: "Hello" " there." " How" " are" "\nyou" " today?" " Fine."
		{reply: "Hello there. How are\nyou today? Fine.", want: map[string]time.Duration{
			tokenpace.MilestoneFirstSentence: ttft + itl, // " there.": the space after it confirms it
			tokenpace.MilestoneFirstLine:     ttft + 4*itl,
			"today":                          ttft + 5*itl,
		}},
		// No terminator, no newline: the end of the output completes both.
		{reply: "just some words", want: map[string]time.Duration{
			tokenpace.MilestoneFirstSentence: ttft + 2*itl,
			tokenpace.MilestoneFirstLine:     ttft + 2*itl,
		}},
		// A full-width terminator needs no space.
		{reply: "你好。 再见", want: map[string]time.Duration{
			tokenpace.MilestoneFirstSentence: ttft,
			tokenpace.MilestoneFirstLine:     ttft + itl,
		}},
		// A decimal point is no sentence end; a closing quote does not hide one.
		{reply: "Pi is 3.14 \"roughly.\" Yes", want: map[string]time.Duration{
			tokenpace.MilestoneFirstSentence: ttft + 3*itl,
			tokenpace.MilestoneFirstLine:     ttft + 4*itl,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.reply, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				live := map[string]time.Duration{}
				var firstToken time.Duration
				hooks := tokenpace.Hooks{
					Milestone:  func(_ context.Context, i tokenpace.MilestoneInfo) { live[i.Name] = i.Elapsed },
					FirstToken: func(_ context.Context, i tokenpace.FirstTokenInfo) { firstToken = i.TTFT },
				}
				c := simClient(t, []simulate.Option{
					simulate.WithModel("m", &simulate.Fixed{TTFT: ttft, ITL: itl}),
					simulate.WithReply(func(simulate.ReplyInfo) (string, bool) { return tt.reply, true }),
				}, tokenpace.WithHooks(hooks), tokenpace.WithMilestone("today", func(text string) bool {
					return strings.Contains(text, "today")
				}))
				s := c.NewStreaming(context.Background(), chat("m", 50))
				drain(t, s, 0)
				if err := s.Err(); err != nil {
					t.Fatalf("Err() = %v", err)
				}
				tm := s.Timing()
				if len(tm.Milestones) != len(tt.want) {
					t.Errorf("Milestones = %v, want %d of them", tm.Milestones, len(tt.want))
				}
				for name, want := range tt.want {
					if got, ok := tm.Milestone(name); !ok || got != want {
						t.Errorf("Milestone(%q) = %v, %v, want %v, true", name, got, ok, want)
					}
					if got := live[name]; got != want {
						t.Errorf("Hooks.Milestone(%q) Elapsed = %v, want %v", name, got, want)
					}
				}
				if firstToken != ttft {
					t.Errorf("Hooks.FirstToken TTFT = %v, want %v", firstToken, ttft)
				}
			})
		})
	}
}

package tokenpace_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// probationReplies scripts "big" to answer "Big one. Big two." and any
// other model "Small one. Small two.".
func probationReplies() simulate.Option {
	return simulate.WithReply(func(ri simulate.ReplyInfo) (string, bool) {
		if ri.Model == "big" {
			return "Big one. Big two.", true
		}
		return "Small one. Small two.", true
	})
}

// probationRouter returns a Router over "big" (50 ms to first token, 20 ms
// between tokens), optionally stalling after its second chunk, then
// "small" (30 ms, 10 ms), with a 100 ms Gap budget and probation p.
func probationRouter(t *testing.T, p tokenpace.Probation, stall bool, hooks tokenpace.Hooks) *tokenpace.Router {
	t.Helper()
	big := route("big")
	if stall {
		big.Options = []option.RequestOption{withFault("stall;for=5s;after=2")}
	}
	ts := simulate.StartInMemory(t, simulate.WithModel("big", &simulate.Fixed{TTFT: 50 * msec, ITL: 20 * msec}),
		simulate.WithModel("small", &simulate.Fixed{TTFT: 30 * msec, ITL: 10 * msec}), probationReplies())
	client := tokenpace.NewClient(openaiClient(ts.URL, ts.Client), tokenpace.WithHooks(hooks))
	r, err := tokenpace.NewRouter(client, tokenpace.Policy{Budget: tokenpace.Budget{Gap: 100 * msec}, Probation: p}, big, route("small"))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestProbationHidesBreach: the big model stalls after its first tokens.
// Held on probation until its first sentence, its tokens never reach the
// caller: the call falls back to the small model as before a first token,
// without Restarted, and the caller's TTFT is the small model's first
// token. Without probation the caller gets the big model's first tokens
// and then the breach.
func TestProbationHidesBreach(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := probationRouter(t, tokenpace.Probation{Sentence: true}, true, tokenpace.Hooks{})
		s := r.NewStreaming(context.Background(), chat("big", 16))
		var text string
		for s.Next() {
			if s.Restarted() {
				t.Errorf("Restarted() = true, want false: the caller saw nothing of big")
			}
			for _, c := range s.Current().Choices {
				text += c.Delta.Content
			}
		}
		s.Close()
		if err := s.Err(); err != nil || text != "Small one. Small two." {
			t.Errorf("caller got %q, %v; want the small model's whole answer and no error", text, err)
		}
		tm := s.Timing()
		if got, want := outcomes(tm), []tokenpace.Outcome{tokenpace.OutcomeBreached, tokenpace.OutcomeWon}; !slices.Equal(got, want) {
			t.Errorf("outcomes = %v, want %v", got, want)
		}
		if got, want := kinds(tm), []tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptFallback}; !slices.Equal(got, want) {
			t.Errorf("kinds = %v, want %v", got, want)
		}
		// big: first token at 50 ms, second at 70 ms, then silence: the
		// gap budget breaks at 170 ms; small answers 30 ms later.
		if got, want := tm.TTFT(), 200*msec; got != want {
			t.Errorf("TTFT() = %v, want %v (small's first token, the caller's first)", got, want)
		}
		if a := tm.Attempts[0]; !a.Committed.IsZero() || a.Tokens != 0 {
			t.Errorf("big attempt committed at %v with %d tokens delivered, want never and none", a.Committed, a.Tokens)
		}
		if a := tm.Attempts[1]; !a.Committed.IsZero() {
			t.Errorf("small attempt committed at %v, want zero: the last route is not held", a.Committed)
		}

		// Without probation the caller hears the big model's first words.
		r = probationRouter(t, tokenpace.Probation{}, true, tokenpace.Hooks{})
		s = r.NewStreaming(context.Background(), chat("big", 16))
		text = readAll(t, s)
		if text == "" || s.Err() == nil {
			t.Errorf("without probation: caller got %q, %v; want big's first words and the breach", text, s.Err())
		}
	})
}

// TestProbationCommits: a healthy stream is held until its condition, then
// the caller receives the held tokens at once and the rest as it comes;
// its TTFT is the commit, and FirstToken says so.
func TestProbationCommits(t *testing.T) {
	tests := []struct {
		name string
		p    tokenpace.Probation
		// commit is the commit's time after the first token (50 ms).
		commit time.Duration
	}{
		{"tokens", tokenpace.Probation{Tokens: 3}, 40 * msec},
		{"for", tokenpace.Probation{For: 30 * msec}, 30 * msec},
		{"for bounds tokens", tokenpace.Probation{Tokens: 100, For: 30 * msec}, 30 * msec},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var mu sync.Mutex
				var firsts []time.Duration
				hooks := tokenpace.Hooks{FirstToken: func(_ context.Context, fi tokenpace.FirstTokenInfo) {
					mu.Lock()
					defer mu.Unlock()
					firsts = append(firsts, fi.TTFT)
				}}
				r := probationRouter(t, tt.p, false, hooks)
				s := r.NewStreaming(context.Background(), chat("big", 16))
				if text := readAll(t, s); text != "Big one. Big two." || s.Err() != nil {
					t.Fatalf("caller got %q, %v; want big's answer", text, s.Err())
				}
				tm := s.Timing()
				a := tm.Attempts[0]
				if got := a.Committed.Sub(a.FirstToken); got != tt.commit {
					t.Errorf("probation cost = %v, want %v", got, tt.commit)
				}
				if got, want := tm.TTFT(), 50*msec+tt.commit; got != want {
					t.Errorf("TTFT() = %v, want %v (the commit)", got, want)
				}
				if got, want := a.TTFT(), 50*msec; got != want {
					t.Errorf("Attempts[0].TTFT() = %v, want %v (its own)", got, want)
				}
				synctest.Wait() // the hook runs on the goroutine that committed
				mu.Lock()
				defer mu.Unlock()
				if want := []time.Duration{50*msec + tt.commit}; !slices.Equal(firsts, want) {
					t.Errorf("FirstToken TTFTs = %v, want %v", firsts, want)
				}
			})
		})
	}
}

// TestProbationSentence: held until the first sentence is complete.
func TestProbationSentence(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := probationRouter(t, tokenpace.Probation{Sentence: true}, false, tokenpace.Hooks{})
		s := r.NewStreaming(context.Background(), chat("big", 16))
		if text := readAll(t, s); text != "Big one. Big two." || s.Err() != nil {
			t.Fatalf("caller got %q, %v; want big's answer", text, s.Err())
		}
		tm := s.Timing()
		a := tm.Attempts[0]
		sentence, ok := tm.Milestones[tokenpace.MilestoneFirstSentence]
		if !ok || a.Committed.IsZero() || !a.Committed.Equal(sentence) || !tm.Chunks[0].Equal(a.Committed) {
			t.Errorf("committed %v, first sentence %v (%v), caller's first chunk %v; want all equal",
				a.Committed.Sub(tm.Start), sentence.Sub(tm.Start), ok, tm.Chunks[0].Sub(tm.Start))
		}
		if a.Committed.Sub(a.FirstToken) <= 0 {
			t.Errorf("probation cost %v, want above 0", a.Committed.Sub(a.FirstToken))
		}
	})
}

// TestProbationSentenceTTFTAsReceived: only the chunk after "one." tells
// its terminator from a decimal point, so the held tokens reach the caller
// when that chunk arrives; the caller's TTFT says so (before: the
// terminator's arrival, one inter-token gap earlier than anything reached
// the caller).
func TestProbationSentenceTTFTAsReceived(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := probationRouter(t, tokenpace.Probation{Sentence: true}, false, tokenpace.Hooks{})
		start := time.Now()
		s := r.NewStreaming(context.Background(), chat("big", 16))
		var received time.Duration
		for s.Next() {
			if received == 0 && len(s.Current().Choices) > 0 && s.Current().Choices[0].Delta.Content != "" {
				received = time.Since(start)
			}
		}
		s.Close()
		tm := s.Timing()
		if s.Err() != nil || tm.TTFT() != received || !tm.Attempts[0].Committed.Equal(start.Add(received)) {
			t.Errorf("TTFT %v, committed %v, Err() = %v; want the first output's receipt %v, nil",
				tm.TTFT(), tm.Attempts[0].Committed.Sub(start), s.Err(), received)
		}
	})
}

// TestProbationE2ESpentKeepsHeld: the call's E2E budget runs out while
// big's output is held; the small route is skipped, the E2E being spent.
// The caller gets the held text with the breach, as without probation,
// when it received them: its TTFT is the breach's time (before: no text
// at all; then a TTFT of big's first token, before anything reached the
// caller).
func TestProbationE2ESpentKeepsHeld(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := probationRouter(t, tokenpace.Probation{Tokens: 1000}, false, tokenpace.Hooks{})
		ctx := tokenpace.ContextWithCallPolicy(context.Background(), tokenpace.CallPolicy{Budget: tokenpace.Budget{E2E: 95 * msec}})
		start := time.Now()
		s := r.NewStreaming(ctx, chat("big", 16))
		var text string
		var received time.Duration
		for s.Next() {
			if ch := s.Current().Choices; len(ch) > 0 && ch[0].Delta.Content != "" {
				if received == 0 {
					received = time.Since(start)
				}
				text += ch[0].Delta.Content
			}
		}
		s.Close()
		if text != "Big one. Big" || !errors.Is(s.Err(), tokenpace.ErrBudgetExceeded) {
			t.Fatalf("caller got %q, %v; want big's held text and the E2E breach", text, s.Err())
		}
		if tm := s.Timing(); tm.TTFT() != received || received != 95*msec {
			t.Errorf("TTFT %v, received at %v; want both 95ms, the breach", tm.TTFT(), received)
		}
	})
}

// TestProbationEndsWhileHeld: a stream that ends before its condition is
// delivered whole; the last route alone is never held.
func TestProbationEndsWhileHeld(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := probationRouter(t, tokenpace.Probation{Tokens: 1000}, false, tokenpace.Hooks{})
		s := r.NewStreaming(context.Background(), chat("big", 16))
		if text := readAll(t, s); text != "Big one. Big two." || s.Err() != nil {
			t.Fatalf("caller got %q, %v; want big's answer", text, s.Err())
		}
		tm := s.Timing()
		if a := tm.Attempts[0]; !a.Committed.Equal(a.End) || !tm.Chunks[0].Equal(a.End) {
			t.Errorf("committed at %v, caller's first chunk %v, end %v: want all at the end",
				a.Committed.Sub(tm.Start), tm.Chunks[0].Sub(tm.Start), a.End.Sub(tm.Start))
		}
		one := router(t, tokenpace.Policy{Probation: tokenpace.Probation{Tokens: 1000}}, []simulate.Option{probationReplies(),
			simulate.WithModel("big", &simulate.Fixed{TTFT: 50 * msec, ITL: 20 * msec})}, route("big"))
		tm = callOK(t, one, chat("big", 16))
		if a := tm.Attempts[0]; !a.Committed.IsZero() || tm.TTFT() != 50*msec {
			t.Errorf("one route: committed %v, TTFT %v; want never held, 50ms", a.Committed, tm.TTFT())
		}
	})
}

// TestProbationHookPanics: a FirstToken hook that panics at a commit made
// by Probation.For's timer ends the call with the panic's error; the
// process lives on and Close returns.
func TestProbationHookPanics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hooks := tokenpace.Hooks{FirstToken: func(context.Context, tokenpace.FirstTokenInfo) { panic("boom") }}
		r := probationRouter(t, tokenpace.Probation{For: 30 * msec}, false, hooks)
		s := r.NewStreaming(context.Background(), chat("big", 16))
		readAll(t, s)
		checkKind(t, s.Err(), tokenpace.KindPanic)
	})
}

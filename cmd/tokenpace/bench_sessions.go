package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
)

// sessionFlags describe multi-turn sessions: each of sessions
// conversations sends turns requests one after another, each carrying the
// conversation so far (the previous prompts and the replies the server
// gave), with think time between a reply and the next turn.
type sessionFlags struct {
	sessions int
	turns    int
	think    time.Duration
}

// register registers the session flags on fs.
func (s *sessionFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&s.sessions, "sessions", 0, "run this many multi-turn conversations at once, each turn carrying the previous ones (0: single requests)")
	fs.IntVar(&s.turns, "turns", 4, "with --sessions: turns per conversation")
	fs.DurationVar(&s.think, "think", 2*time.Second, "with --sessions: the user's think time between a reply and the next turn")
}

// on reports whether sessions were asked for.
func (s sessionFlags) on() bool { return s.sessions > 0 }

// check reports a session flag out of range or clashing with another.
func (s sessionFlags) check(f *benchFlags) error {
	switch {
	case s.sessions < 0:
		return fmt.Errorf("--sessions must be positive, got %d", s.sessions)
	case !s.on() && (f.set["turns"] || f.set["think"]):
		return errors.New("--turns and --think need --sessions")
	case !s.on():
		return nil
	case s.turns < 1 || s.think < 0:
		return fmt.Errorf("--turns must be positive and --think not negative, got %d, %v", s.turns, s.think)
	case s.sessions > 10_000_000/s.turns: // as a product, it could wrap
		return fmt.Errorf("--sessions %d × --turns %d: at most 10,000,000 requests", s.sessions, s.turns)
	case s.sessions > 100_000: // a goroutine and a connection each
		return fmt.Errorf("--sessions %d: at most 100,000 at once", s.sessions)
	case f.set["find-max-rate"]:
		return errors.New("--sessions sets the load: it excludes --find-max-rate, which searches a request rate")
	case f.set["rate"] || f.set["requests"] || f.set["concurrency"]:
		return errors.New("--sessions sets the load (sessions × turns requests, one in flight per session): it excludes --rate, --requests and --concurrency")
	}
	return nil
}

// describe says what the sessions send, in one line.
func (s sessionFlags) describe(prompt, maxTokens int) string {
	return fmt.Sprintf("%d sessions at once × %d turns, %v think time; each turn adds %d prompt tokens and carries the conversation so far, max_tokens %d",
		s.sessions, s.turns, s.think, prompt, maxTokens)
}

// sessionLoop runs every session at once; request i is turn i%turns of
// session i/turns.
func (g *loadGen) sessionLoop(ctx context.Context, record func(int, *tokenpace.Timing, time.Time, time.Time)) {
	var wg sync.WaitGroup
	for s := range g.sess.sessions {
		wg.Go(func() { g.session(ctx, s, record) })
	}
	wg.Wait()
}

// session runs session s's turns; a turn that fails ends it, as a user
// whose conversation broke would leave.
func (g *loadGen) session(ctx context.Context, s int, record func(int, *tokenpace.Timing, time.Time, time.Time)) {
	var msgs []openai.ChatCompletionMessageParamUnion
	for turn := range g.sess.turns {
		if turn > 0 && g.sess.think > 0 {
			select {
			case <-time.After(g.sess.think):
			case <-ctx.Done():
				return
			}
		}
		i := s*g.sess.turns + turn
		msgs = append(msgs, openai.UserMessage(randomWords(rand.New(rand.NewPCG(g.promptSeed, uint64(i))), g.prompt-promptOverhead)))
		t, reply := g.stream(ctx, openai.ChatCompletionNewParams{
			Model: g.model, Messages: msgs, MaxTokens: openai.Int(int64(g.maxTokens)),
		})
		record(i, t, time.Time{}, time.Time{})
		if t.Err != nil || ctx.Err() != nil {
			return
		}
		msgs = append(msgs, openai.AssistantMessage(reply))
	}
}

package tokenpace_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/sony/gobreaker/v2"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// TestLatestWins: a second request for the same key cancels the first,
// which is recorded as superseded and does not count against the target.
func TestLatestWins(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := router(t, tokenpace.Policy{Breaker: tokenpace.BreakerSettings{Failures: 1}}, []simulate.Option{
			simulate.WithModel("m", &simulate.Fixed{TTFT: 60 * msec, ITL: 20 * msec}), replyWords(10),
		}, route("m"))
		var l tokenpace.Latest
		ctx1, done1 := l.Begin(context.Background(), "buffer.go")
		defer done1()
		s1 := r.NewStreaming(ctx1, chat("m", 10))
		time.Sleep(100 * msec) // the first request has 3 tokens by now
		ctx2, done2 := l.Begin(context.Background(), "buffer.go")
		defer done2()
		s2 := r.NewStreaming(ctx2, chat("m", 10))

		readAll(t, s1)
		if err := s1.Err(); !errors.Is(err, context.Canceled) {
			t.Errorf("first: Err() = %v, want context.Canceled", err)
		}
		if !errors.Is(context.Cause(ctx1), tokenpace.ErrSuperseded) {
			t.Errorf("Superseded(first ctx) = false, want true")
		}
		if got, want := outcomes(s1.Timing()), []tokenpace.Outcome{tokenpace.OutcomeSuperseded}; !slices.Equal(got, want) {
			t.Errorf("first: outcomes = %v, want %v", got, want)
		}
		if text := readAll(t, s2); text != words(1, 10) || s2.Err() != nil {
			t.Errorf("second: content, Err() = %q, %v, want %q, nil", text, s2.Err(), words(1, 10))
		}
		if errors.Is(context.Cause(ctx2), tokenpace.ErrSuperseded) {
			t.Errorf("Superseded(second ctx) = true, want false")
		}
		if st, _ := r.BreakerState("m"); st != gobreaker.StateClosed {
			t.Errorf("BreakerState(m) = %v, want closed", st)
		}
	})
}

// TestLatestKeys: different keys do not cancel each other, and done
// releases a key.
func TestLatestKeys(t *testing.T) {
	var l tokenpace.Latest
	a, doneA := l.Begin(context.Background(), "a")
	b, doneB := l.Begin(context.Background(), "b")
	if a.Err() != nil || b.Err() != nil {
		t.Fatalf("contexts of different keys cancelled: %v, %v", a.Err(), b.Err())
	}
	doneA()
	if !errors.Is(a.Err(), context.Canceled) || errors.Is(context.Cause(a), tokenpace.ErrSuperseded) {
		t.Errorf("after done: Err() = %v, Superseded = %v, want Canceled, false", a.Err(), errors.Is(context.Cause(a), tokenpace.ErrSuperseded))
	}
	a2, doneA2 := l.Begin(context.Background(), "a")
	defer doneA2()
	if a2.Err() != nil || b.Err() != nil {
		t.Errorf("a new request after done was cancelled: %v, %v", a2.Err(), b.Err())
	}
	doneB()
}

// TestSupersededError: a superseded request ends with an error that is
// ErrSuperseded (and context.Canceled), on a plain Client and on a
// Router, in Stream.Err and in the Timing.
func TestSupersededError(t *testing.T) {
	for _, via := range []string{"client", "router"} {
		t.Run(via, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				sopts := []simulate.Option{simulate.WithModel("m", &simulate.Fixed{TTFT: 60 * msec, ITL: 20 * msec}), replyWords(10)}
				var open func(ctx context.Context) *tokenpace.Stream[openai.ChatCompletionChunk]
				if via == "client" {
					c := simClient(t, sopts)
					open = func(ctx context.Context) *tokenpace.Stream[openai.ChatCompletionChunk] {
						return c.NewStreaming(ctx, chat("m", 10))
					}
				} else {
					r := router(t, tokenpace.Policy{}, sopts, route("m"))
					open = func(ctx context.Context) *tokenpace.Stream[openai.ChatCompletionChunk] {
						return r.NewStreaming(ctx, chat("m", 10))
					}
				}
				var l tokenpace.Latest
				ctx1, done1 := l.Begin(context.Background(), "k")
				defer done1()
				s1 := open(ctx1)
				time.Sleep(100 * msec)
				ctx2, done2 := l.Begin(context.Background(), "k")
				defer done2()
				s2 := open(ctx2)
				readAll(t, s1)
				for what, err := range map[string]error{"Err()": s1.Err(), "Timing().Err": s1.Timing().Err} {
					if !errors.Is(err, tokenpace.ErrSuperseded) || !errors.Is(err, context.Canceled) {
						t.Errorf("first: %s = %v, want ErrSuperseded and context.Canceled", what, err)
					}
				}
				if text := readAll(t, s2); text != words(1, 10) || s2.Err() != nil {
					t.Errorf("second: content, Err() = %q, %v, want %q, nil", text, s2.Err(), words(1, 10))
				}
			})
		})
	}
}

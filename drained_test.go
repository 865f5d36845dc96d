package tokenpace_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// TestDrainedWithoutClose: once Next has returned false, the request is
// over: its Timing is final and the Done hook has run, without Close, on
// a plain Client and on a Router.
func TestDrainedWithoutClose(t *testing.T) {
	for _, via := range []string{"client", "router"} {
		t.Run(via, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var mu sync.Mutex
				var done []*tokenpace.Timing
				h := tokenpace.Hooks{Done: func(context.Context, *tokenpace.Timing) {
					// A slow observer (virtual time): the caller must
					// still not see the end before it returns.
					time.Sleep(time.Second)
					mu.Lock()
					defer mu.Unlock()
					done = append(done, nil)
				}}
				sopts := []simulate.Option{simulate.WithModel("m", &simulate.Fixed{TTFT: 10 * msec, ITL: 1 * msec}), replyWords(20)}
				c := simClient(t, sopts, tokenpace.WithHooks(h))
				var s *tokenpace.Stream[openai.ChatCompletionChunk]
				if via == "client" {
					s = c.NewStreaming(context.Background(), chat("m", 20))
				} else {
					r, err := tokenpace.NewRouter(c, tokenpace.Policy{}, route("m"))
					if err != nil {
						t.Fatal(err)
					}
					s = r.NewStreaming(context.Background(), chat("m", 20))
				}
				for s.Next() {
				}
				mu.Lock()
				n := len(done)
				mu.Unlock()
				if n != 1 {
					t.Errorf("Done hooks run when Next returned false = %d, want 1", n)
				}
				if tm := s.Timing(); tm.End.IsZero() || tm.OutputTokens != 20 {
					t.Errorf("Timing() after Next = false: End %v, tokens %d, want final with 20", tm.End, tm.OutputTokens)
				}
				s.Close()
			})
		})
	}
}

package tokenpace_test

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
)

// heldBody gives its first part, then blocks in Read until release is
// closed, whatever its Close or the request's context say: a middleware's
// body of the caller's that ignores both.
type heldBody struct {
	release <-chan struct{}
	sent    bool
}

func (b *heldBody) Read(p []byte) (int, error) {
	if !b.sent {
		b.sent = true
		return copy(p, twoChunks[0]), nil
	}
	<-b.release
	return 0, errors.New("released")
}

func (b *heldBody) Close() error { return nil }

// Code of the caller's that holds an attempt up and ignores both the
// context and the body's Close: a middleware that never returns, a body
// whose Read blocks on. Close waited as long as that code did: forever
// here, where bare openai-go's Close returns at once. It now returns
// 100 ms after it was called, with the stream's Timing final (ended by
// Close, the text read before it kept) and the Done hook called once;
// when the caller's code lets go, the held goroutine ends without a
// further hook.
func TestCloseReturnsWhileCallerCodeHoldsUp(t *testing.T) {
	for _, tc := range []struct {
		name       string
		router     bool
		middleware bool // the middleware holds the request up; else the body its first read on
		hook       bool // the FirstToken hook holds the first chunk up
		inNext     bool // the caller waits in Next meanwhile, on a goroutine of its own
		text       string
	}{
		{name: "client body", text: "hi"},
		{name: "client body, Next waiting", inNext: true, text: "hi"},
		{name: "router body", router: true, text: "hi"},
		{name: "router body, Next waiting", router: true, inNext: true, text: "hi"},
		{name: "router middleware", router: true, middleware: true},
		{name: "client hook", hook: true},
		{name: "router hook", router: true, hook: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				release := make(chan struct{})
				stub := option.WithMiddleware(func(req *http.Request, _ option.MiddlewareNext) (*http.Response, error) {
					if tc.middleware {
						<-release
					}
					return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
						Body: &heldBody{release: release}, Request: req}, nil
				})
				var firsts, dones atomic.Int32
				hooks := tokenpace.WithHooks(tokenpace.Hooks{
					FirstToken: func(context.Context, tokenpace.FirstTokenInfo) {
						firsts.Add(1)
						if tc.hook {
							<-release
						}
					},
					Done: func(context.Context, *tokenpace.Timing) { dones.Add(1) },
				})
				oc := openai.NewClient(option.WithBaseURL("http://unused.invalid/v1"), option.WithAPIKey("k"), option.WithMaxRetries(0))
				c := tokenpace.NewClient(oc, hooks)
				var s *tokenpace.Stream[openai.ChatCompletionChunk]
				if tc.router {
					r, err := tokenpace.NewRouter(c, tokenpace.Policy{}, tokenpace.Route{Name: "only", Model: "m"})
					if err != nil {
						t.Fatal(err)
					}
					s = r.NewStreaming(context.Background(), chat("m", 10), stub)
				} else {
					s = c.NewStreaming(context.Background(), chat("m", 10), stub)
				}
				if tc.text != "" && !s.Next() {
					t.Fatalf("Next() = false, Err() = %v; want the first chunk", s.Err())
				}
				nextDone := make(chan bool, 1)
				if tc.inNext {
					go func() { nextDone <- s.Next() }()
				}
				time.Sleep(time.Second)
				synctest.Wait()
				closed := time.Now()
				s.Close()
				if waited := time.Since(closed); waited != 100*time.Millisecond {
					t.Errorf("Close waited %v, want 100ms", waited)
				}
				tm := s.Timing()
				end, chunks := tm.End, tm.OutputChunks
				if !errors.Is(tm.Err, tokenpace.ErrStreamClosed) || !tm.End.Equal(closed.Add(100*time.Millisecond)) {
					t.Errorf("Timing() Err %v, End %v after Close; want ErrStreamClosed at %v", tm.Err, tm.End.Sub(closed), 100*time.Millisecond)
				}
				if got := s.Text(); got != tc.text {
					t.Errorf("Text() = %q, want %q", got, tc.text)
				}
				if n := dones.Load(); n != 1 {
					t.Errorf("Done called %d times by Close's return, want 1", n)
				}
				firstsAtClose := firsts.Load()
				close(release)
				if tc.inNext {
					if more := <-nextDone; more {
						t.Errorf("Next() waiting at Close = true, want false")
					}
				}
				synctest.Wait()
				if s.Next() || s.Err() != nil {
					t.Errorf("after Close: Next() true or Err() = %v; want false and nil", s.Err())
				}
				if n, f := dones.Load(), firsts.Load(); n != 1 || f != firstsAtClose {
					t.Errorf("after the caller's code let go: Done called %d times, FirstToken %d (was %d); want 1 and no more", n, f, firstsAtClose)
				}
				if after := s.Timing(); !after.End.Equal(end) || after.OutputChunks != chunks || !errors.Is(after.Err, tokenpace.ErrStreamClosed) {
					t.Errorf("Timing after the caller's code let go: End %v, %d chunks, Err %v; want it as at Close", after.End.Sub(closed), after.OutputChunks, after.Err)
				}
			})
		})
	}
}

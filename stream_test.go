package tokenpace_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// TestArrivalExact checks that timestamps are taken when the bytes arrive:
// a caller that sleeps 50 ms per chunk must not change them, and TTFT and
// every gap equal the simulator's schedule plus its RTT exactly.
func TestArrivalExact(t *testing.T) {
	const (
		ttft = 200 * time.Millisecond
		itl  = 20 * time.Millisecond
		rtt  = 10 * time.Millisecond
		n    = 12
	)
	for _, pause := range []time.Duration{0, 50 * time.Millisecond} {
		t.Run(pause.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var rec record
				c := simClient(t, []simulate.Option{
					simulate.WithModel("m", &simulate.Fixed{TTFT: ttft, ITL: itl}),
					simulate.WithRTT(rtt),
				}, tokenpace.WithHooks(rec.hooks()))
				s := c.NewStreaming(context.Background(), chat("m", n))
				drain(t, s, pause)
				if err := s.Err(); err != nil {
					t.Fatalf("Err() = %v, want nil", err)
				}
				s.Close()
				tm := s.Timing()
				if got, want := tm.TTFT(), ttft+rtt; got != want {
					t.Errorf("TTFT() = %v, want %v", got, want)
				}
				gaps := tm.ITL()
				if len(gaps) != n-1 {
					t.Fatalf("len(ITL()) = %d, want %d", len(gaps), n-1)
				}
				for i, g := range gaps {
					if g != itl {
						t.Errorf("ITL()[%d] = %v, want %v", i, g, itl)
					}
				}
				if got, want := tm.E2E(), ttft+rtt+(n-1)*itl; got != want {
					t.Errorf("E2E() = %v, want %v", got, want)
				}
				if got := tm.OutputTokens; got != n {
					t.Errorf("OutputTokens = %d, want %d", got, n)
				}
				if !tm.UsageReported {
					t.Errorf("UsageReported = false, want true")
				}
				if got := tm.TPOT(); got != itl {
					t.Errorf("TPOT() = %v, want %v", got, itl)
				}
				if len(rec.done) != 1 || rec.done[0] != tm {
					t.Errorf("Done called %d times, want once with the final Timing", len(rec.done))
				}
			})
		})
	}
}

// TestTimingWhileStreaming checks that Timing is a snapshot while the
// response arrives, safe to take from another goroutine, and final once
// the stream has ended.
func TestTimingWhileStreaming(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := simClient(t, []simulate.Option{
			simulate.WithModel("m", &simulate.Fixed{TTFT: 100 * time.Millisecond, ITL: 10 * time.Millisecond}),
		})
		s := c.NewStreaming(context.Background(), chat("m", 10))
		time.Sleep(135 * time.Millisecond) // tokens at 100, 110, 120, 130 ms have arrived
		synctest.Wait()
		var snap *tokenpace.Timing
		done := make(chan struct{})
		go func() { // another goroutine
			defer close(done)
			snap = s.Timing()
		}()
		<-done
		if len(snap.Chunks) != 4 || !snap.End.IsZero() {
			t.Errorf("snapshot has %d chunks, End %v; want 4 and zero", len(snap.Chunks), snap.End)
		}
		drain(t, s, 0)
		final := s.Timing()
		if len(final.Chunks) != 10 || final.End.IsZero() || len(snap.Chunks) != 4 {
			t.Errorf("final has %d chunks, End %v, snapshot now %d; want 10, set, 4", len(final.Chunks), final.End, len(snap.Chunks))
		}
		if s.Timing() != final {
			t.Errorf("Timing() after the end is not the final Timing")
		}
	})
}

// TestCloseFromAnotherGoroutine checks that Close unblocks a Next that
// waits for a chunk.
func TestCloseFromAnotherGoroutine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := simClient(t, []simulate.Option{
			simulate.WithModel("m", &simulate.Fixed{TTFT: time.Hour}),
		})
		s := c.NewStreaming(context.Background(), chat("m", 10))
		go func() {
			time.Sleep(time.Second)
			s.Close()
		}()
		if s.Next() {
			t.Fatal("Next() = true, want false")
		}
		if err := s.Err(); err != nil {
			t.Errorf("Err() = %v, want nil after Close", err)
		}
		if got := s.Timing().Err; got != tokenpace.ErrStreamClosed {
			t.Errorf("Timing().Err = %v, want ErrStreamClosed", got)
		}
		if got, want := s.Timing().E2E(), time.Second; got != want {
			t.Errorf("E2E() = %v, want %v", got, want)
		}
	})
}

// TestNewErrors checks the endings of a failed non-streaming call.
func TestNewErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var rec record
		c := simClient(t, []simulate.Option{
			simulate.WithModel("m", &simulate.Fixed{TTFT: time.Second}),
		}, tokenpace.WithHooks(rec.hooks()))
		_, err := c.New(context.Background(), chat("m", 5), withFault("503"))
		var apiErr *openai.Error
		if checkKind(t, err, tokenpace.KindRequest); !errors.As(err, &apiErr) || apiErr.StatusCode != 503 {
			t.Errorf("New() error = %v, want a 503 *openai.Error inside", err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		var tm *tokenpace.Timing
		res, err := c.New(ctx, chat("m", 5), tokenpace.WithTimingInto(&tm))
		if res != nil || err != context.DeadlineExceeded || tm.Err != err {
			t.Errorf("New() = %v, Timing.Err %v, %v; want nil, the error, %v", res, tm.Err, err, context.DeadlineExceeded)
		}
		if len(rec.done) != 2 {
			t.Errorf("Done called %d times, want 2", len(rec.done))
		}
	})
}

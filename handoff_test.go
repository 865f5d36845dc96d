package tokenpace_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tokenpace/tokenpace"
)

// handOffRecording is a stream whose chunk k (k = 0 the role chunk) is
// written at at[k] after the request, one write each, then the finish
// chunk and [DONE] 1 ms after the last.
func handOffRecording(at []time.Duration) recording {
	rec := recording{Status: 200, HeadersMS: 1, Headers: map[string]string{"Content-Type": "text/event-stream"}}
	const head = `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[`
	for k, d := range at {
		delta := `{"role":"assistant","content":""}`
		if k > 0 {
			delta = fmt.Sprintf(`{"content":"w%d "}`, k)
		}
		rec.Reads = append(rec.Reads, recordedRead{
			TMS:  float64(d) / float64(time.Millisecond),
			Data: head + `{"index":0,"delta":` + delta + `,"finish_reason":null}]}` + "\n\n",
		})
	}
	last := at[len(at)-1] + time.Millisecond
	rec.Reads = append(rec.Reads, recordedRead{TMS: float64(last) / float64(time.Millisecond), Data: stopDone})
	return rec
}

// backgroundReaders counts the goroutines that read a body in the
// background, away from the caller.
func backgroundReaders() int {
	buf := make([]byte, 1<<20)
	return strings.Count(string(buf[:runtime.Stack(buf, true)]), "tokenpace.(*attempt).readBackground")
}

// TestHandOffStamps checks the stamps a plain call gives whatever its
// caller does between chunks: exact for a caller that waits in Next (which
// then reads the body itself, no other goroutine reading once it has kept
// up for a few chunks) and for one that sleeps long (a background reader
// takes over); at most the absence bound late for a chunk that arrives
// while a quick caller is briefly away.
func TestHandOffStamps(t *testing.T) {
	// A role chunk, ten content chunks 1 ms apart, then two 20 µs apart.
	var at []time.Duration
	for k := range 11 {
		at = append(at, 5*time.Millisecond+time.Duration(k)*time.Millisecond)
	}
	at = append(at, 20*time.Millisecond, 20*time.Millisecond+20*time.Microsecond)
	last := len(at) - 1
	tests := []struct {
		name string
		// pause returns how long the caller is away after chunk k.
		pause func(k int) time.Duration
		// late is how late the last chunk is stamped.
		late time.Duration
		// inline: from chunk 6 on, no background reader runs while the
		// caller is away for no time.
		inline bool
	}{
		{name: "waits", pause: func(int) time.Duration { return 0 }, inline: true},
		{name: "sleeps 50ms", pause: func(int) time.Duration { return 50 * time.Millisecond }},
		{name: "away 30µs", pause: func(k int) time.Duration {
			if k == last-1 {
				return 30 * time.Microsecond // the last chunk arrives 20 µs in
			}
			return 0
		}, late: 10 * time.Microsecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				url, hc := serve(t, replay(handOffRecording(at)))
				var rec record
				c := tokenpace.NewClient(openaiClient(url, hc), tokenpace.WithHooks(rec.hooks()))
				s := c.NewStreaming(context.Background(), chat("m", 20))
				k := 0
				for s.Next() {
					if tt.inline && k >= 6 {
						synctest.Wait()
						if n := backgroundReaders(); n != 0 {
							t.Errorf("after chunk %d: background readers = %d, want 0", k, n)
						}
					}
					time.Sleep(tt.pause(k))
					k++
				}
				if err := s.Err(); err != nil {
					t.Fatalf("Err() = %v, want nil", err)
				}
				if len(rec.done) != 1 {
					t.Fatalf("Done calls when Next returned false = %d, want 1", len(rec.done))
				}
				tm := s.Timing()
				if tm != rec.done[0] || tm.End.IsZero() {
					t.Errorf("Timing() when Next returned false is not the final Timing given to Done")
				}
				if k != len(at)+1 || len(tm.Chunks) != len(at)-1 { // the role chunk, the output, the finish chunk
					t.Fatalf("chunks read = %d, output chunks = %d; want %d, %d", k, len(tm.Chunks), len(at)+1, len(at)-1)
				}
				if got, want := tm.FirstChunk.Sub(tm.Sent), at[0]; got != want {
					t.Errorf("first chunk at %v, want %v", got, want)
				}
				for i, c := range tm.Chunks {
					want := at[i+1]
					if i+1 == last {
						want += tt.late
					}
					if got := c.Sub(tm.Sent); got != want {
						t.Errorf("Chunks[%d] at %v, want %v", i, got, want)
					}
				}
				s.Close()
				if len(rec.done) != 1 {
					t.Errorf("Done calls after Close = %d, want 1", len(rec.done))
				}
			})
		})
	}
}

// TestHandOffEndings checks how a plain call ends when its caller's
// context is cancelled, or another goroutine closes it, while the caller
// reads the body itself in Next, and while it is briefly away from Next
// holding the reader role: the right error and End, Done exactly once,
// Close and Next return.
func TestHandOffEndings(t *testing.T) {
	// A role chunk, six content chunks 1 ms apart, then nothing for an hour.
	var at []time.Duration
	for k := range 7 {
		at = append(at, 5*time.Millisecond+time.Duration(k)*time.Millisecond)
	}
	at = append(at, time.Hour)
	tests := []struct {
		name string
		// away: the caller leaves Next after the seventh chunk, for long;
		// else it waits in Next for the eighth.
		away   bool
		cancel bool          // cancel the caller's context, else Close
		stopAt time.Duration // when, from the call
		// lateBy: End is stopAt plus at most this.
		lateBy  time.Duration
		wantErr error
	}{
		{name: "cancel while reading", cancel: true, stopAt: time.Second, wantErr: context.DeadlineExceeded},
		{name: "close while reading", stopAt: time.Second, wantErr: tokenpace.ErrStreamClosed},
		// Nobody reads while a quick caller is away: Close ends the call
		// itself, a cancellation is seen when the absence timer fires.
		{name: "cancel while away", away: true, cancel: true, stopAt: at[6] + 10*time.Microsecond,
			lateBy: 40 * time.Microsecond, wantErr: context.DeadlineExceeded},
		{name: "close while away", away: true, stopAt: at[6] + 10*time.Microsecond, wantErr: tokenpace.ErrStreamClosed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				url, hc := serve(t, replay(handOffRecording(at)))
				var rec record
				c := tokenpace.NewClient(openaiClient(url, hc), tokenpace.WithHooks(rec.hooks()))
				ctx := context.Background()
				stop := time.Now().Add(tt.stopAt)
				if tt.cancel {
					var cancel context.CancelFunc
					ctx, cancel = context.WithDeadline(ctx, stop)
					defer cancel()
				}
				s := c.NewStreaming(ctx, chat("m", 20))
				closed := make(chan struct{})
				go func() {
					defer close(closed)
					if !tt.cancel {
						time.Sleep(time.Until(stop))
						s.Close()
					}
				}()
				for range 7 {
					if !s.Next() {
						t.Fatalf("Next() = false before the first seven chunks, Err() = %v", s.Err())
					}
				}
				if tt.away {
					time.Sleep(time.Second)
				}
				<-closed
				if s.Next() {
					t.Errorf("Next() = true after the call was stopped, want false")
				}
				wantErr := tt.wantErr
				if wantErr == tokenpace.ErrStreamClosed {
					wantErr = nil // Err reports a Close as nil
				}
				if err := s.Err(); err != wantErr {
					t.Errorf("Err() = %v, want %v", err, wantErr)
				}
				s.Close()
				tm := s.Timing()
				if tm.Err != tt.wantErr {
					t.Errorf("Timing().Err = %v, want %v", tm.Err, tt.wantErr)
				}
				if got := tm.End.Sub(tm.Start); got < tt.stopAt || got > tt.stopAt+tt.lateBy {
					t.Errorf("End - Start = %v, want %v (+ at most %v)", got, tt.stopAt, tt.lateBy)
				}
				if len(rec.done) != 1 || rec.done[0] != tm {
					t.Errorf("Done calls = %d, want 1 with the final Timing", len(rec.done))
				}
			})
		})
	}
}

// latest returns how late the latest stamp of tm's chunks is, after its
// chunk's bytes arrived at arrivals[i] after Sent, and which chunk it is;
// it fails the test unless every chunk was stamped.
func latest(t *testing.T, tm *tokenpace.Timing, arrivals []time.Duration) (worst time.Duration, at int) {
	t.Helper()
	if len(tm.Chunks) != len(arrivals) {
		t.Fatalf("%d chunks stamped, want %d", len(tm.Chunks), len(arrivals))
	}
	for i, c := range tm.Chunks {
		if late := c.Sub(tm.Sent) - arrivals[i]; late > worst {
			worst, at = late, i
		}
	}
	return worst, at
}

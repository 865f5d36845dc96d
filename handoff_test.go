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
// written at at[k] after the request, one write each, then [DONE] 1 ms
// after the last.
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
	rec.Reads = append(rec.Reads, recordedRead{TMS: float64(last) / float64(time.Millisecond), Data: "data: [DONE]\n\n"})
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
				if k != len(at) || len(tm.Chunks) != len(at)-1 {
					t.Fatalf("chunks read = %d, output chunks = %d; want %d, %d", k, len(tm.Chunks), len(at), len(at)-1)
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

// TestHandOffCallerFallsBehind: a caller that kept up, then spends 40 µs
// on each chunk (each absence under the bound) while chunks arrive every
// 10 µs, falls behind: bytes wait while it works on chunks read earlier.
// The background reader takes over, and no chunk is stamped more than the
// absence bound after it arrived.
func TestHandOffCallerFallsBehind(t *testing.T) {
	var at []time.Duration
	for k := range 7 { // the role chunk and six chunks 1 ms apart: the caller keeps up
		at = append(at, time.Millisecond+time.Duration(k)*time.Millisecond)
	}
	for k := range 40 { // then forty chunks 10 µs apart
		at = append(at, 10*time.Millisecond+time.Duration(k)*10*time.Microsecond)
	}
	synctest.Test(t, func(t *testing.T) {
		url, hc := serve(t, replay(handOffRecording(at)))
		s := tokenpace.NewClient(openaiClient(url, hc)).NewStreaming(context.Background(), chat("m", 60))
		for k := 0; s.Next(); k++ {
			if k >= 6 {
				time.Sleep(40 * time.Microsecond)
			}
		}
		if worst, worstAt := latest(t, s.Timing(), at[1:]); worst > 50*time.Microsecond {
			t.Errorf("Chunks[%d] stamped %v after its bytes arrived, want at most 50µs", worstAt, worst)
		}
	})
}

// TestHandOffHandBackFromBuffer: the background reader gives the role
// back on a chunk it decoded from its buffer (read at 6 ms) to a caller
// that waited for it; the bytes that arrived 24 µs after that read wait in
// the connection from then on, and are stamped within the bound.
func TestHandOffHandBackFromBuffer(t *testing.T) {
	const head = `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[`
	event := func(k int) string {
		return head + fmt.Sprintf(`{"index":0,"delta":{"content":"w%d "},"finish_reason":null}]}`, k) + "\n\n"
	}
	rec := recording{Status: 200, HeadersMS: 1, Headers: map[string]string{"Content-Type": "text/event-stream"}}
	T := 6 * time.Millisecond
	var arrivals []time.Duration
	for k := 1; k <= 5; k++ {
		at := time.Duration(k) * time.Millisecond
		rec.Reads = append(rec.Reads, recordedRead{TMS: float64(at) / float64(time.Millisecond), Data: event(k)})
		arrivals = append(arrivals, at)
	}
	rec.Reads = append(rec.Reads,
		recordedRead{TMS: float64(T) / float64(time.Millisecond), Data: event(6) + event(7) + event(8) + event(9)},
		recordedRead{TMS: float64(T+24*time.Microsecond) / float64(time.Millisecond), Data: event(10)},
		recordedRead{TMS: 8, Data: "data: [DONE]\n\n"})
	arrivals = append(arrivals, T, T, T, T, T+24*time.Microsecond)
	pauses := map[string]time.Duration{"w6 ": 60 * time.Microsecond, "w7 ": 5 * time.Microsecond, "w8 ": 60 * time.Microsecond}
	synctest.Test(t, func(t *testing.T) {
		url, hc := serve(t, replay(rec))
		slept := false // a milestone check that takes 20 µs on the background reader
		slowCheck := tokenpace.WithMilestone("slow", func(text string) bool {
			if strings.HasSuffix(text, "w8 ") && !slept {
				slept = true
				time.Sleep(20 * time.Microsecond)
			}
			return false
		})
		s := tokenpace.NewClient(openaiClient(url, hc), slowCheck).NewStreaming(context.Background(), chat("m", 60))
		for s.Next() {
			time.Sleep(pauses[s.Current().Choices[0].Delta.Content])
		}
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v", err)
		}
		if worst, worstAt := latest(t, s.Timing(), arrivals); worst > 50*time.Microsecond {
			t.Errorf("Chunks[%d] (w%d) stamped %v after its bytes arrived, want at most 50µs", worstAt, worstAt+1, worst)
		}
	})
}

// TestHandOffBurstBeyondOneRead: a burst of 40 chunks (about 12 KiB,
// more than one read takes) arrives while a quick caller is away; the
// caller's read returns its first part at once, and the rest, waiting in
// the connection, is stamped within the bound.
func TestHandOffBurstBeyondOneRead(t *testing.T) {
	const head = `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[`
	event := func(k int) string {
		delta := `{"role":"assistant","content":""}`
		if k > 0 {
			delta = fmt.Sprintf(`{"content":"w%d %s"}`, k, strings.Repeat("x", 250))
		}
		return head + `{"index":0,"delta":` + delta + `,"finish_reason":null}]}` + "\n\n"
	}
	rec := recording{Status: 200, HeadersMS: 1, Headers: map[string]string{"Content-Type": "text/event-stream"}}
	var arrivals []time.Duration
	k := 0
	for ; k < 7; k++ {
		at := time.Duration(k+1) * time.Millisecond
		rec.Reads = append(rec.Reads, recordedRead{TMS: float64(at) / float64(time.Millisecond), Data: event(k)})
		if k > 0 {
			arrivals = append(arrivals, at)
		}
	}
	burstAt := 7*time.Millisecond + 10*time.Microsecond
	var burst strings.Builder
	for ; k < 7+40; k++ {
		burst.WriteString(event(k))
		arrivals = append(arrivals, burstAt)
	}
	rec.Reads = append(rec.Reads,
		recordedRead{TMS: float64(burstAt) / float64(time.Millisecond), Data: burst.String()},
		recordedRead{TMS: 9, Data: "data: [DONE]\n\n"})
	synctest.Test(t, func(t *testing.T) {
		url, hc := serve(t, replay(rec))
		s := tokenpace.NewClient(openaiClient(url, hc)).NewStreaming(context.Background(), chat("m", 60))
		for k := 0; s.Next(); k++ {
			switch {
			case k == 6:
				time.Sleep(40 * time.Microsecond)
			case k > 6:
				time.Sleep(10 * time.Microsecond)
			}
		}
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v", err)
		}
		if worst, worstAt := latest(t, s.Timing(), arrivals); worst > 50*time.Microsecond {
			t.Errorf("Chunks[%d] stamped %v after its bytes arrived, want at most 50µs", worstAt, worst)
		}
	})
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

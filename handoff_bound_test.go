package tokenpace_test

// Stamps within the absence bound (a chunk whose bytes arrive while a
// quick caller is away is stamped at most 50 µs after they arrived), and
// exact for a slow caller, when callers fall behind, hooks take time,
// bursts exceed one read and the background reader hands the role back.

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tokenpace/tokenpace"
)

// stampCheck replays rec to a caller that pauses pause(k, content) after
// its chunk k, and checks that no chunk is stamped more than bound after
// its bytes arrived (arrivals[i] after Sent, for Chunks[i]).
type stampCheck struct {
	rec      recording
	arrivals []time.Duration
	pause    func(k int, content string) time.Duration
	bound    time.Duration
	opts     []tokenpace.Option
}

func (c stampCheck) run(t *testing.T) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		url, hc := serve(t, replay(c.rec))
		s := tokenpace.NewClient(openaiClient(url, hc), c.opts...).NewStreaming(context.Background(), chat("m", 60))
		for k := 0; s.Next(); k++ {
			content := ""
			if ch := s.Current().Choices; len(ch) > 0 {
				content = ch[0].Delta.Content
			}
			time.Sleep(c.pause(k, content))
		}
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v", err)
		}
		if worst, worstAt := latest(t, s.Timing(), c.arrivals); worst > c.bound {
			t.Errorf("Chunks[%d] stamped %v after its bytes arrived, want at most %v", worstAt, worst, c.bound)
		}
	})
}

// pauseAt pauses d after chunk k, for each k in at, and not otherwise.
func pauseAt(at map[int]time.Duration) func(int, string) time.Duration {
	return func(k int, _ string) time.Duration { return at[k] }
}

// msApart returns the arrival times of the role chunk and n content
// chunks, 1 ms apart from 1 ms on: a pace any caller keeps up with.
func msApart(n int) []time.Duration {
	var at []time.Duration
	for k := range n + 1 {
		at = append(at, time.Millisecond+time.Duration(k)*time.Millisecond)
	}
	return at
}

// slowCheck is a milestone whose check takes d when the text ends with
// word, on whichever goroutine reads.
func slowCheck(word string, d time.Duration) tokenpace.Option {
	return tokenpace.WithMilestone("slow", func(text string) bool {
		if strings.HasSuffix(text, word) {
			time.Sleep(d)
		}
		return false
	})
}

// burstRecording is a stream of the role chunk and six content chunks
// 1 ms apart, then 40 chunks of 250 bytes more (about 12 KiB, more than
// one read takes) in one write at 7.01 ms; and the arrival time of each
// content chunk.
func burstRecording() (recording, []time.Duration) {
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
		recordedRead{TMS: 9, Data: stopDone})
	return rec, arrivals
}

// TestHandOffCallerFallsBehind: a caller that kept up, then spends 40 µs
// on each chunk (each absence under the bound) while chunks arrive every
// 10 µs, falls behind: bytes wait while it works on chunks read earlier.
// The background reader takes over, and no chunk is stamped more than the
// absence bound after it arrived.
func TestHandOffCallerFallsBehind(t *testing.T) {
	at := msApart(6)    // the caller keeps up
	for k := range 40 { // then forty chunks 10 µs apart
		at = append(at, 10*time.Millisecond+time.Duration(k)*10*time.Microsecond)
	}
	stampCheck{rec: handOffRecording(at), arrivals: at[1:], bound: 50 * time.Microsecond,
		pause: func(k int, _ string) time.Duration {
			if k >= 6 {
				return 40 * time.Microsecond
			}
			return 0
		}}.run(t)
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
		recordedRead{TMS: 8, Data: stopDone})
	arrivals = append(arrivals, T, T, T, T, T+24*time.Microsecond)
	pauses := map[string]time.Duration{"w6 ": 60 * time.Microsecond, "w7 ": 5 * time.Microsecond, "w8 ": 60 * time.Microsecond}
	stampCheck{rec: rec, arrivals: arrivals, bound: 50 * time.Microsecond,
		opts:  []tokenpace.Option{slowCheck("w8 ", 20*time.Microsecond)}, // on the background reader
		pause: func(_ int, content string) time.Duration { return pauses[content] }}.run(t)
}

// TestHandOffBurstBeyondOneRead: a burst of 40 chunks (about 12 KiB,
// more than one read takes) arrives while a quick caller is away; the
// caller's read returns its first part at once, and the rest, waiting in
// the connection, is stamped within the bound.
func TestHandOffBurstBeyondOneRead(t *testing.T) {
	rec, arrivals := burstRecording()
	stampCheck{rec: rec, arrivals: arrivals, bound: 50 * time.Microsecond,
		pause: func(k int, _ string) time.Duration {
			switch {
			case k == 6:
				return 40 * time.Microsecond
			case k > 6:
				return 10 * time.Microsecond
			}
			return 0
		}}.run(t)
}

// TestHandOffBurstThenSlow: a quick caller is away 45 µs after w6; a burst
// of 40 chunks (more than one read takes) arrives 10 µs into that absence.
// It comes back, its read returns the first part at once, and it leaves
// again for 300 µs with the first chunk of the burst: the rest of the
// burst, waiting in the connection since 35 µs before, must still be
// stamped within the bound.
func TestHandOffBurstThenSlow(t *testing.T) {
	rec, arrivals := burstRecording()
	stampCheck{rec: rec, arrivals: arrivals, bound: 50 * time.Microsecond,
		pause: pauseAt(map[int]time.Duration{6: 45 * time.Microsecond, 7: 300 * time.Microsecond})}.run(t)
}

// TestHandOffSlowHook: a caller that kept up gets w8 at T; a milestone
// check on w8 takes 20 µs, and w9's bytes arrive at T+5µs, during it. The
// check runs on the caller, inside Next (the caller waited for w8), or on
// a background reader that then hands the role back (the caller came
// back late after w7). The caller then is away 45 µs, under the bound:
// w9 waits from T+5µs, and must be stamped within the bound of that.
func TestHandOffSlowHook(t *testing.T) {
	at := msApart(8)
	at = append(at, at[8]+5*time.Microsecond) // w9
	for _, tc := range []struct {
		name   string
		pauses map[int]time.Duration
	}{
		{"on the caller", map[int]time.Duration{8: 45 * time.Microsecond}},
		{"on the background reader", map[int]time.Duration{7: 100 * time.Microsecond, 8: 45 * time.Microsecond}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stampCheck{rec: handOffRecording(at), arrivals: at[1:], bound: 50 * time.Microsecond,
				opts: []tokenpace.Option{slowCheck("w8 ", 20*time.Microsecond)}, pause: pauseAt(tc.pauses)}.run(t)
		})
	}
}

// TestHandOffSlowCallerExact: a caller that is away 300 µs after every
// chunk (never quick) waits in Next for w8 (1 ms after w7); w9 arrives
// 20 µs after w8 while the caller is away. A slow caller's stamps are
// exact.
func TestHandOffSlowCallerExact(t *testing.T) {
	at := msApart(8)
	at = append(at, at[8]+20*time.Microsecond)
	stampCheck{rec: handOffRecording(at), arrivals: at[1:], bound: 0,
		pause: func(int, string) time.Duration { return 300 * time.Microsecond }}.run(t)
}

package tokenpace_test

// Stamps within the absence bound, and exact for a slow caller, when
// hooks take time, bursts exceed one read, and a slow caller's background
// reader would hand back the role.

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tokenpace/tokenpace"
)

// TestHandOffSlowHookOnCaller: a caller that kept up reads chunk w8 itself
// (its read waited for it, at T); a milestone check on that chunk takes
// 20 µs on the caller's goroutine, inside Next, and w9's bytes arrive 5 µs
// after T, during that check. The caller then is away 45 µs (under the
// bound). w9 waits from T+5µs, but the absence counts from the departure
// (T+20µs), so w9 is stamped at T+65µs: 60 µs late, where a background
// reader would have stamped it at T+20µs.
func TestHandOffSlowHookOnCaller(t *testing.T) {
	var at []time.Duration
	for k := range 9 { // role chunk + w1..w8, 1 ms apart
		at = append(at, time.Millisecond+time.Duration(k)*time.Millisecond)
	}
	T := at[8]
	at = append(at, T+5*time.Microsecond) // w9
	synctest.Test(t, func(t *testing.T) {
		url, hc := serve(t, replay(handOffRecording(at)))
		slow := tokenpace.WithMilestone("slow", func(text string) bool {
			if strings.HasSuffix(text, "w8 ") {
				time.Sleep(20 * time.Microsecond)
			}
			return false
		})
		s := tokenpace.NewClient(openaiClient(url, hc), slow).NewStreaming(context.Background(), chat("m", 60))
		for k := 0; s.Next(); k++ {
			if k == 8 {
				time.Sleep(45 * time.Microsecond)
			}
		}
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v", err)
		}
		if worst, worstAt := latest(t, s.Timing(), at[1:]); worst > 50*time.Microsecond {
			t.Errorf("Chunks[%d] stamped %v after its bytes arrived, want at most 50µs", worstAt, worst)
		}
	})
}

// TestHandOffSlowHookOnHandBack: the caller came back late after w7, so a
// background reader reads w8 alone at T while the caller waits; a
// milestone check on w8 takes 20 µs on that reader, which then gives the
// role back. w9's bytes arrive at T+5µs, during the check. The caller
// takes w8 and is away 45 µs (under the bound): w9 waits from T+5µs but
// the absence counts from T+20µs, so it is stamped at T+65µs, 60 µs late.
func TestHandOffSlowHookOnHandBack(t *testing.T) {
	var at []time.Duration
	for k := range 9 { // role chunk + w1..w8, 1 ms apart
		at = append(at, time.Millisecond+time.Duration(k)*time.Millisecond)
	}
	T := at[8]
	at = append(at, T+5*time.Microsecond) // w9
	synctest.Test(t, func(t *testing.T) {
		url, hc := serve(t, replay(handOffRecording(at)))
		slow := tokenpace.WithMilestone("slow", func(text string) bool {
			if strings.HasSuffix(text, "w8 ") {
				time.Sleep(20 * time.Microsecond)
			}
			return false
		})
		s := tokenpace.NewClient(openaiClient(url, hc), slow).NewStreaming(context.Background(), chat("m", 60))
		for k := 0; s.Next(); k++ {
			switch k {
			case 7:
				time.Sleep(100 * time.Microsecond)
			case 8:
				time.Sleep(45 * time.Microsecond)
			}
		}
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v", err)
		}
		if worst, worstAt := latest(t, s.Timing(), at[1:]); worst > 50*time.Microsecond {
			t.Errorf("Chunks[%d] stamped %v after its bytes arrived, want at most 50µs", worstAt, worst)
		}
	})
}

// TestHandOffSlowCallerExact: a caller that is away 300 µs after every
// chunk (never quick) waits in Next for w8 (1 ms after w7); w9 arrives
// 20 µs after w8 while the caller is away. A slow caller's stamps are
// exact.
func TestHandOffSlowCallerExact(t *testing.T) {
	var at []time.Duration
	for k := range 9 {
		at = append(at, time.Millisecond+time.Duration(k)*time.Millisecond)
	}
	at = append(at, at[8]+20*time.Microsecond)
	synctest.Test(t, func(t *testing.T) {
		url, hc := serve(t, replay(handOffRecording(at)))
		s := tokenpace.NewClient(openaiClient(url, hc)).NewStreaming(context.Background(), chat("m", 60))
		for s.Next() {
			time.Sleep(300 * time.Microsecond)
		}
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v", err)
		}
		if worst, worstAt := latest(t, s.Timing(), at[1:]); worst != 0 {
			t.Errorf("Chunks[%d] stamped %v after its bytes arrived, want 0", worstAt, worst)
		}
	})
}

// TestHandOffBurstThenSlow: a quick caller is away 45 µs after w6; a burst
// of 40 chunks (more than one read takes) arrives 10 µs into that absence.
// It comes back, its read returns the first part at once, and it leaves
// again for 300 µs with the first chunk of the burst: the rest of the
// burst, waiting in the connection since 35 µs before, must still be
// stamped within the bound.
func TestHandOffBurstThenSlow(t *testing.T) {
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
			switch k {
			case 6:
				time.Sleep(45 * time.Microsecond)
			case 7:
				time.Sleep(300 * time.Microsecond)
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

package tokenpace_test

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"
)

// randomStream returns a stream of n content chunks in reads of 1 to 4
// chunks (1 to 40 when big, whose chunks are 250 bytes longer: a burst
// more than one read takes), the reads from 5 µs to 1 ms apart, some
// exactly at the absence bound; and the arrival time of each chunk.
func randomStream(r *rand.Rand, n int, big bool) (recording, []time.Duration) {
	const head = `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[`
	pad := ""
	if big {
		pad = strings.Repeat("x", 250)
	}
	rec := recording{Status: 200, HeadersMS: 1, Headers: map[string]string{"Content-Type": "text/event-stream"}}
	gaps := []time.Duration{5, 10, 20, 30, 40, 45, 49, 50, 51, 55, 60, 80, 100, 1000}
	at := time.Millisecond
	var arrivals []time.Duration
	for k := 1; k <= n; {
		g := 1 + r.IntN(4)
		if big && r.IntN(4) == 0 {
			g = 1 + r.IntN(40)
		}
		if r.IntN(2) == 0 {
			g = 1
		}
		var b strings.Builder
		for i := 0; i < g && k <= n; i++ {
			fmt.Fprintf(&b, head+`{"index":0,"delta":{"content":"w%d %s"},"finish_reason":null}]}`+"\n\n", k, pad)
			arrivals = append(arrivals, at)
			k++
		}
		rec.Reads = append(rec.Reads, recordedRead{TMS: float64(at) / float64(time.Millisecond), Data: b.String()})
		at += gaps[r.IntN(len(gaps))] * time.Microsecond
	}
	rec.Reads = append(rec.Reads, recordedRead{TMS: float64(at+time.Millisecond) / float64(time.Millisecond), Data: stopDone})
	return rec, arrivals
}

// TestHandOffRandom: over random streams (bursts, gaps around the bound)
// and random callers (pauses from none to 300 µs, some at the bound), no
// chunk is stamped more than the absence bound after its bytes arrived;
// and for a slow caller (every pause at or over the bound), none late at
// all.
func TestHandOffRandom(t *testing.T) {
	cases := []struct {
		name   string
		big    bool
		pauses []time.Duration // µs
		bound  time.Duration
	}{
		{"mixed", false, []time.Duration{0, 0, 0, 5, 10, 25, 40, 45, 49, 50, 51, 55, 70, 100, 300}, 50 * time.Microsecond},
		{"bursts", true, []time.Duration{0, 0, 0, 5, 10, 25, 40, 45, 49, 50, 51, 55, 70, 100, 300}, 50 * time.Microsecond},
		{"slow", false, []time.Duration{50, 51, 55, 70, 100, 300}, 0},
	}
	const seeds = 60
	for _, tc := range cases {
		for seed := range seeds {
			t.Run(tc.name+"/"+strconv.Itoa(seed), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(seed), 1))
				rec, arrivals := randomStream(r, 30, tc.big)
				pauses := make([]time.Duration, len(arrivals)+1)
				for i := range pauses {
					pauses[i] = tc.pauses[r.IntN(len(tc.pauses))] * time.Microsecond
				}
				stampCheck{rec: rec, arrivals: arrivals, bound: tc.bound,
					pause: func(k int, _ string) time.Duration { return pauses[k] }}.run(t)
			})
		}
	}
}

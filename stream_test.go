package tokenpace_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

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

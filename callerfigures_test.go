package tokenpace_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// TestRouterCallerFigures: a Router call's figures are what its caller
// waited for, whatever happened behind it; each attempt keeps its own.
func TestRouterCallerFigures(t *testing.T) {
	tests := []struct {
		name     string
		policy   tokenpace.Policy
		wantTTFT time.Duration // the caller's, from the call's first request
		wantE2E  time.Duration
		// the answering attempt's own TTFT
		wantAttemptTTFT time.Duration
		wantKinds       []tokenpace.AttemptKind
	}{
		{
			// The primary breaches its 180 ms TTFT budget; the fallback
			// answers 50 ms after it starts.
			name:            "fallback",
			policy:          tokenpace.Policy{Budget: tokenpace.Budget{TTFT: 180 * msec}},
			wantTTFT:        230 * msec,
			wantE2E:         230*msec + 4*10*msec,
			wantAttemptTTFT: 50 * msec,
			wantKinds:       []tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptFallback},
		},
		{
			// The hedge starts after 100 ms and answers 50 ms later.
			name:            "hedge",
			policy:          tokenpace.Policy{Hedge: tokenpace.Hedge{After: 100 * msec}},
			wantTTFT:        150 * msec,
			wantE2E:         150*msec + 4*10*msec,
			wantAttemptTTFT: 50 * msec,
			wantKinds:       []tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptHedge},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var firsts []tokenpace.FirstTokenInfo
				var rec record
				h := rec.hooks()
				h.FirstToken = func(_ context.Context, fi tokenpace.FirstTokenInfo) { firsts = append(firsts, fi) }
				c := simClient(t, []simulate.Option{
					simulate.WithModel("big", &simulate.Fixed{TTFT: 2 * time.Second, ITL: 20 * msec}),
					simulate.WithModel("small", &simulate.Fixed{TTFT: 50 * msec, ITL: 10 * msec}),
					replyByModel(5),
				}, tokenpace.WithHooks(h))
				r, err := tokenpace.NewRouter(c, tt.policy, route("big"), route("small"))
				if err != nil {
					t.Fatal(err)
				}
				s := r.NewStreaming(context.Background(), chat("big", 5))
				if got, want := readAll(t, s), "S1 S2 S3 S4 S5"; got != want {
					t.Fatalf("content = %q, want %q", got, want)
				}
				if err := s.Err(); err != nil {
					t.Fatalf("Err() = %v, want nil", err)
				}
				tm := s.Timing()
				if got := tm.TTFT(); got != tt.wantTTFT {
					t.Errorf("TTFT() = %v, want %v", got, tt.wantTTFT)
				}
				if got := tm.UserTTFT(); got != tt.wantTTFT {
					t.Errorf("UserTTFT() = %v, want %v", got, tt.wantTTFT)
				}
				if got := tm.Queue(); got != 0 {
					t.Errorf("Queue() = %v, want 0 (no limiter)", got)
				}
				if got := tm.E2E(); got != tt.wantE2E {
					t.Errorf("E2E() = %v, want %v", got, tt.wantE2E)
				}
				if got, want := tm.TPOT(), 10*msec; got != want {
					t.Errorf("TPOT() = %v, want %v", got, want)
				}
				if got := kinds(tm); len(got) != 2 || got[0] != tt.wantKinds[0] || got[1] != tt.wantKinds[1] {
					t.Fatalf("kinds = %v, want %v", got, tt.wantKinds)
				}
				if got := tm.Attempts[1].TTFT(); got != tt.wantAttemptTTFT {
					t.Errorf("Attempts[1].TTFT() = %v, want %v", got, tt.wantAttemptTTFT)
				}
				if got := tm.Attempts[0].TTFT(); got != 0 {
					t.Errorf("Attempts[0].TTFT() = %v, want 0 (no token)", got)
				}
				if len(firsts) != 1 || firsts[0].TTFT != tt.wantTTFT {
					t.Errorf("FirstToken calls = %+v, want one with TTFT %v", firsts, tt.wantTTFT)
				}
				if len(rec.done) != 1 || rec.done[0].TTFT() != tt.wantTTFT {
					t.Errorf("Done calls = %d, want one with TTFT %v", len(rec.done), tt.wantTTFT)
				}
			})
		})
	}
}

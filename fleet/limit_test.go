package fleet_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/fleet"
)

// reserve reserves tokens on l and fails t on an error.
func reserve(t *testing.T, l *fleet.Limiter, tokens int) (time.Duration, func(time.Time)) {
	t.Helper()
	d, cancel, err := l.Reserve(time.Now(), tokens)
	if err != nil {
		t.Fatalf("Reserve(%d) error = %v, want nil", tokens, err)
	}
	return d, cancel
}

// replicas returns n Limiters of the same name on srv, each with its own
// client, as n processes would have.
func replicas(t *testing.T, srv *redisServer, n int, l tokenpace.Limit) []*fleet.Limiter {
	t.Helper()
	var out []*fleet.Limiter
	for range n {
		lim, err := fleet.NewLimiter(srv.client(t), "route-a", l, slack)
		if err != nil {
			t.Fatalf("NewLimiter(%+v) error = %v", l, err)
		}
		t.Cleanup(func() { lim.Close() })
		out = append(out, lim)
	}
	return out
}

func TestLimiterSharedTPM(t *testing.T) {
	srv := startRedis(t)
	rs := replicas(t, srv, 2, tokenpace.Limit{TPM: 1000})
	a, b := rs[0], rs[1]
	if d, _ := reserve(t, a, 600); d != 0 {
		t.Fatalf("a.Reserve(600) on a fresh limit = %v, want 0", d)
	}
	// Each replica alone would admit 600 of its 1000 at once; the fleet
	// has 400 left, so b's 600 waits for 200 tokens (12 s at 1000/min).
	d, cancel := reserve(t, b, 600)
	if d <= 0 || d > 12*time.Second {
		t.Fatalf("b.Reserve(600) after a's 600 = %v, want in (0, 12s]", d)
	}
	cancel(time.Now())
	cancel(time.Now()) // acts once
	b.Flush()
	if d, _ := reserve(t, b, 400); d != 0 {
		t.Fatalf("b.Reserve(400) after the cancelled 600 = %v, want 0", d)
	}
	if d, _ := reserve(t, a, 50); d <= 0 {
		t.Fatalf("a.Reserve(50) with the minute used up = %v, want a wait", d)
	}
}

func TestLimiterSharedRPS(t *testing.T) {
	srv := startRedis(t)
	rs := replicas(t, srv, 3, tokenpace.Limit{RPS: 1, Burst: 2})
	var waits []time.Duration
	for _, l := range rs {
		d, _ := reserve(t, l, 10)
		waits = append(waits, d)
	}
	if waits[0] != 0 || waits[1] != 0 || waits[2] <= 0 || waits[2] > time.Second {
		t.Fatalf("waits of three replicas at 1 rps, burst 2 = %v, want [0 0 (0,1s]]", waits)
	}
}

func TestLimiterTooLarge(t *testing.T) {
	srv := startRedis(t)
	l := replicas(t, srv, 1, tokenpace.Limit{RPS: 5, TPM: 1000})[0]
	if _, _, err := l.Reserve(time.Now(), 1001); !errors.Is(err, fleet.ErrTooLarge) {
		t.Fatalf("Reserve(1001) on TPM 1000 error = %v, want ErrTooLarge", err)
	}
	// The refusal took nothing, not even the request of the RPS bucket.
	for i := range 5 {
		if d, _ := reserve(t, l, 100); d != 0 {
			t.Fatalf("Reserve #%d after a refusal = %v, want 0", i, d)
		}
	}
}

func TestNewLimiterInvalid(t *testing.T) {
	srv := startRedis(t)
	rdb := srv.client(t)
	tests := []struct {
		name  string
		limit tokenpace.Limit
	}{
		{"none", tokenpace.Limit{}},
		{"negative RPS", tokenpace.Limit{RPS: -1}},
		{"negative TPM", tokenpace.Limit{TPM: -1}},
		{"negative burst", tokenpace.Limit{RPS: 1, Burst: -1}},
	}
	for _, tt := range tests {
		if _, err := fleet.NewLimiter(rdb, "x", tt.limit); err == nil {
			t.Errorf("NewLimiter(%s %+v) error = nil, want an error", tt.name, tt.limit)
		}
	}
	if _, err := fleet.NewLimiter(nil, "x", tokenpace.Limit{RPS: 1}); err == nil {
		t.Errorf("NewLimiter(nil client) error = nil, want an error")
	}
	if _, err := fleet.NewLimiter(rdb, "", tokenpace.Limit{RPS: 1}); err == nil {
		t.Errorf("NewLimiter(empty name) error = nil, want an error")
	}
}

func TestLimiterCountsAddUp(t *testing.T) {
	srv := startRedis(t)
	const n, each, tokens = 3, 10, 10
	rs := replicas(t, srv, n, tokenpace.Limit{TPM: 1000})
	var wg sync.WaitGroup
	for _, l := range rs {
		for range each {
			wg.Go(func() { l.Reserve(time.Now(), tokens) })
		}
	}
	wg.Wait()
	// Every reservation took its 10 tokens, none lost to a concurrent
	// update: 300 of the minute's 1000 are gone, 700 are left.
	if d, _ := reserve(t, rs[0], 1000-n*each*tokens); d != 0 {
		t.Fatalf("Reserve(%d) after %d reservations of %d = %v, want 0", 1000-n*each*tokens, n*each, tokens, d)
	}
	if d, _ := reserve(t, rs[1], 100); d <= 0 {
		t.Fatalf("Reserve(100) with the minute used up = %v, want a wait", d)
	}
}

func TestLimiterSettle(t *testing.T) {
	srv := startRedis(t)
	rs := replicas(t, srv, 2, tokenpace.Limit{TPM: 1000})
	a, b := rs[0], rs[1]
	// Reserved for 10 tokens, the request used 700: the fleet has 300
	// left, so b's 400 waits for 100 (6 s at 1000/min).
	reserve(t, a, 10)
	a.Settle(time.Now(), 10, 700)
	a.Flush()
	d, _ := reserve(t, b, 400)
	if d < 5*time.Second || d > 6*time.Second {
		t.Fatalf("b.Reserve(400) after a used 700 = %v, want about 6s", d)
	}
	// Reserved for 400, used 100: 300 come back, and 200 fit at once
	// (they would wait 18 s without).
	b.Settle(time.Now(), 400, 100)
	b.Flush()
	if d, _ := reserve(t, a, 200); d > time.Second {
		t.Fatalf("a.Reserve(200) after b gave back 300 = %v, want at most 1s", d)
	}
}

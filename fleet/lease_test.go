package fleet_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/fleet"
)

// leased returns n Limiters of the same name on srv made WithLease(lease,
// ttl), each with its own client whose commands rt counts, closed when
// the test ends.
func leased(t *testing.T, srv *redisServer, rt *roundTrips, n int, l tokenpace.Limit, lease int, ttl time.Duration) []*fleet.Limiter {
	t.Helper()
	var out []*fleet.Limiter
	for range n {
		lim, err := fleet.NewLimiter(srv.client(t, rt), "route-a", l, slack, fleet.WithLease(lease, ttl))
		if err != nil {
			t.Fatalf("NewLimiter(%+v) error = %v", l, err)
		}
		t.Cleanup(func() { lim.Close() })
		out = append(out, lim)
	}
	return out
}

func TestLimiterLeaseRoundTrips(t *testing.T) {
	srv := startRedis(t)
	var rt roundTrips
	l := leased(t, srv, &rt, 1, tokenpace.Limit{RPS: 1e6, TPM: 1e9}, 8, time.Hour)[0]
	reserve(t, l, 100) // loads the script
	l.Close()          // gives its lease back
	l = leased(t, srv, &rt, 1, tokenpace.Limit{RPS: 1e6, TPM: 1e9}, 8, time.Hour)[0]
	before := rt.reserves.Load()
	const calls = 100
	for i := range calls {
		if d, _ := reserve(t, l, 100); d != 0 {
			t.Fatalf("call %d: Reserve(100) far below the limit = %v, want 0", i, d)
		}
		l.Flush() // waits for the lease topped up in the background
	}
	// The first call takes its own cost and a lease of 8 more requests;
	// the others take from the lease, topped up in the background each
	// time it falls below half (every 5 calls).
	if got, want := rt.reserves.Load()-before, int64(1+(calls-1)/5); got != want {
		t.Fatalf("round trips of %d reservations with leases of 8 = %d, want %d", calls, got, want)
	}
}

func TestLimiterLeaseBound(t *testing.T) {
	srv := startRedis(t)
	// A limit that refills about never (one request per 1,000 s): what
	// the replicas admit is the burst, plus what the leases let them run
	// ahead of it.
	const replicas, workers, calls, burst, lease = 3, 2, 20, 20, 4
	limit := tokenpace.Limit{RPS: 0.001, Burst: burst}
	rs := leased(t, srv, new(roundTrips), replicas, limit, lease, time.Hour)
	var admitted atomic.Int64
	var wg sync.WaitGroup
	for _, l := range rs {
		for range workers {
			wg.Go(func() {
				for range calls {
					d, cancel, err := l.Reserve(time.Now(), 1)
					if err != nil {
						t.Errorf("Reserve(1) error = %v, want nil", err)
						return
					}
					if d == 0 {
						admitted.Add(1)
					} else {
						cancel(time.Now()) // too long a wait: not sent
					}
				}
			})
		}
	}
	wg.Wait()
	got := admitted.Load()
	if max := int64(burst + replicas*lease); got > max {
		t.Fatalf("%d replicas with leases of %d admitted %d on a burst of %d, want at most %d", replicas, lease, got, burst, max)
	}
	if got < burst-replicas*lease {
		t.Fatalf("%d replicas with leases of %d admitted %d on a burst of %d, want at least %d", replicas, lease, got, burst, burst-replicas*lease)
	}
	// Closing gives back what the leases still hold and the cancelled
	// waits: an exact limiter then finds exactly the burst less what was
	// admitted.
	for _, l := range rs {
		l.Close()
	}
	exact := replicas1(t, srv, limit)
	for i := range burst - got {
		if d, _ := reserve(t, exact, 1); d != 0 {
			t.Fatalf("reservation %d of the %d left after %d admitted = %v, want 0", i, burst-got, got, d)
		}
	}
	if d, _ := reserve(t, exact, 1); d <= 0 {
		t.Fatalf("reservation past the burst = %v, want a wait", d)
	}
}

// replicas1 returns one exact Limiter of the name replicas uses.
func replicas1(t *testing.T, srv *redisServer, l tokenpace.Limit) *fleet.Limiter {
	t.Helper()
	return replicas(t, srv, 1, l)[0]
}

// A cancelled reservation taken from a lease goes back to the lease; one
// made in Redis goes back to Redis.
func TestLimiterLeaseCancel(t *testing.T) {
	srv := startRedis(t)
	limit := tokenpace.Limit{RPS: 0.001, Burst: 4}
	a := leased(t, srv, new(roundTrips), 1, limit, 2, time.Hour)[0]
	_, cancelRedis := reserve(t, a, 1) // takes 1 and leases 2
	_, cancelLeased := reserve(t, a, 1)
	cancelLeased(time.Now())
	cancelLeased(time.Now()) // acts once
	cancelRedis(time.Now())
	a.Flush()
	// Redis counts the lease of 2 only: 2 of the burst are left.
	exact := replicas1(t, srv, limit)
	for i := range 2 {
		if d, _ := reserve(t, exact, 1); d != 0 {
			t.Fatalf("exact: reservation %d of the 2 left = %v, want 0", i, d)
		}
	}
	if d, _ := reserve(t, exact, 1); d <= 0 {
		t.Fatalf("exact: reservation past the burst = %v, want a wait", d)
	}
	// a's lease holds 2 again.
	for i := range 2 {
		if d, _ := reserve(t, a, 1); d != 0 {
			t.Fatalf("a: reservation %d of the 2 in its lease = %v, want 0", i, d)
		}
	}
}

// A lease that goes unused is given back after its ttl, so a quiet
// replica does not keep capacity from the others for long. Virtual time:
// the ttl passes at once; Redis, a real server, sees the real time.
func TestLimiterLeaseExpires(t *testing.T) {
	srv := startRedis(t)
	synctest.Test(t, func(t *testing.T) {
		const ttl = 100 * time.Millisecond
		limit := tokenpace.Limit{RPS: 0.001, Burst: 3}
		a := leased(t, srv, new(roundTrips), 1, limit, 2, ttl)[0]
		b := replicas1(t, srv, limit)
		reserve(t, a, 1) // takes 1 and leases the other 2
		d, cancel := reserve(t, b, 1)
		if d <= 0 {
			t.Fatalf("b.Reserve(1) while a leases the rest of the burst = %v, want a wait", d)
		}
		cancel(time.Now())
		b.Flush()
		time.Sleep(ttl)
		synctest.Wait()
		a.Flush() // the expired lease, given back in the background, now
		for i := range 2 {
			if d, _ := reserve(t, b, 1); d != 0 {
				t.Fatalf("b.Reserve(1) %d of 2 after a's lease expired = %v, want 0", i, d)
			}
		}
	})
}

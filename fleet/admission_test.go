package fleet_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/sony/gobreaker/v2"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/fleet"
)

// pair returns a Breaker and a Limiter WithBreaker on one client of srv,
// whose commands rt counts.
func pair(t *testing.T, srv *redisServer, rt *roundTrips) (*fleet.Breaker, *fleet.Limiter) {
	t.Helper()
	return sharedPair(t, srv.client(t, rt), tokenpace.BreakerSettings{}, []fleet.Option{fleet.WithStateMaxAge(time.Hour)},
		"a", tokenpace.Limit{RPS: 1e6, TPM: 1e9})
}

// sharedPair returns a Breaker named "a" of bs, with bopts, and a Limiter
// named name of l that reads it (WithBreaker), with lopts, both on rdb
// with the tests' slack and closed when t ends.
func sharedPair(t *testing.T, rdb redis.UniversalClient, bs tokenpace.BreakerSettings, bopts []fleet.Option,
	name string, l tokenpace.Limit, lopts ...fleet.Option) (*fleet.Breaker, *fleet.Limiter) {
	t.Helper()
	b, err := fleet.NewBreaker(rdb, "a", bs, append([]fleet.Option{slack}, bopts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	lim, err := fleet.NewLimiter(rdb, name, l, append([]fleet.Option{slack, fleet.WithBreaker(b)}, lopts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lim.Close() })
	return b, lim
}

func TestAdmissionOneRoundTrip(t *testing.T) {
	srv := startRedis(t)
	var rt roundTrips
	b, l := pair(t, srv, &rt)
	admit := func() func(error) {
		t.Helper()
		done, err := b.Allow()
		if err != nil {
			t.Fatalf("Allow() = %v, want nil", err)
		}
		if _, _, err := l.Reserve(time.Now(), 100); err != nil {
			t.Fatalf("Reserve(100) = %v, want nil", err)
		}
		return done
	}
	admit()(nil) // loads the scripts
	b.Flush()
	for i := range 5 {
		before := rt.cmds.Load()
		done := admit()
		if n := rt.cmds.Load() - before; n != 1 {
			t.Fatalf("call %d: Redis commands of Allow and Reserve = %d, want 1", i, n)
		}
		for range 3 {
			done(nil) // one outcome, with two duplicates that a batch merges
		}
		before = rt.cmds.Load()
		b.Flush()
		if n := rt.cmds.Load() - before; n > 1 {
			t.Fatalf("call %d: Redis commands to record its outcomes = %d, want at most 1", i, n)
		}
	}
}

// A Router's call through a Route with both costs one round trip to admit
// and, off its path and shared with other calls, one to record its
// outcome and one to count the tokens it used (Limiter.Settle): calls one
// after another, as here, share none.
func TestRouterAdmissionRoundTrips(t *testing.T) {
	srv := startRedis(t)
	be := newBackend(t)
	var rt roundTrips
	b, l := pair(t, srv, &rt)
	r := be.replica(t, tokenpace.Policy{}, b, l)
	// The first call loads the scripts: its outcome's (Flush) and its
	// usage's (the Limiter's Flush), each an EVALSHA refused and an EVAL.
	checkAttempts(t, routed(t, r, 5), "a:won")
	b.Flush()
	l.Flush()
	const calls = 5
	cmds, reserves, dials := rt.cmds.Load(), rt.reserves.Load(), rt.dials.Load()
	for range calls {
		checkAttempts(t, routed(t, r, 5), "a:won")
	}
	// What is still batched is sent now, inside the count: the calls'
	// outcomes and their usages, at most one batch each per call.
	b.Flush()
	l.Flush()
	cmds, reserves, dials = rt.cmds.Load()-cmds, rt.reserves.Load()-reserves, rt.dials.Load()-dials
	if reserves != calls || cmds > 3*calls {
		t.Fatalf("Redis commands of %d calls = %d, %d of them reservations, want at most %d, %d (connections dialed meanwhile: %d)", calls, cmds, reserves, 3*calls, calls, dials)
	}
}

// With a lease, most admissions cost no round trip: the Breaker decides
// from the state it read last, the Limiter from its lease.
func TestAdmissionLeased(t *testing.T) {
	srv := startRedis(t)
	var rt roundTrips
	rdb := srv.client(t, &rt)
	b, err := fleet.NewBreaker(rdb, "a", tokenpace.BreakerSettings{}, slack, fleet.WithStateMaxAge(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	const lease = 8
	l, err := fleet.NewLimiter(rdb, "a", tokenpace.Limit{RPS: 1e6, TPM: 1e9}, slack, fleet.WithBreaker(b), fleet.WithLease(lease, time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	admit := func() int64 {
		t.Helper()
		before := rt.cmds.Load()
		done, err := b.Allow()
		if err != nil {
			t.Fatalf("Allow() = %v, want nil", err)
		}
		if d, _, err := l.Reserve(time.Now(), 100); d != 0 || err != nil {
			t.Fatalf("Reserve(100) = %v, %v, want 0, nil", d, err)
		}
		n := rt.cmds.Load() - before
		done(nil)
		b.Flush() // records the outcome now, not during the next admission
		return n
	}
	admit() // reads the state, loads the script, takes a lease
	// Until the lease is half used, nothing asks Redis (then a goroutine
	// tops it up: TestLimiterLeaseRoundTrips).
	for i := range lease / 2 {
		if n := admit(); n != 0 {
			t.Fatalf("admission %d within the lease: Redis commands = %d, want 0", i, n)
		}
	}
}

// A Router whose route has a leased Limiter reserves most calls without
// a round trip.
func TestRouterAdmissionLeased(t *testing.T) {
	srv := startRedis(t)
	be := newBackend(t)
	var rt roundTrips
	l, err := fleet.NewLimiter(srv.client(t, &rt), "a", tokenpace.Limit{RPS: 1e6, TPM: 1e9}, slack, fleet.WithLease(8, time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	r := be.replica(t, tokenpace.Policy{}, nil, l)
	const calls = 10
	for range calls {
		checkAttempts(t, routed(t, r, 5), "a:won")
		l.Flush() // the top-up, if one started, is back before the next call
	}
	// The first call loads the script (2 commands) and takes a lease of
	// 8; the next 5 take from it, the fifth leaving 3 of 8, which starts
	// one top-up in the background (1); the last 4 take from the lease
	// topped up. (Without the Flush, a top-up late on a loaded machine
	// lets calls find the lease empty and reserve alone.)
	if got, want := rt.reserves.Load(), int64(3); got != want {
		t.Fatalf("reservations in Redis for %d calls with leases of 8 = %d, want %d", calls, got, want)
	}
}

// A reservation that finds the breaker's state due to move on moves it
// on, as a read would: an open breaker whose timeout passed becomes
// half-open, the Breaker decides from that, and the change is reported
// by the process that made it. (A timeout of 1 µs of Redis's clock has
// passed by the next round trip.)
func TestAdmissionMovesStateOn(t *testing.T) {
	srv := startRedis(t)
	rdb := srv.client(t)
	var mu sync.Mutex
	var changes []string
	s := tokenpace.BreakerSettings{Failures: 1, Timeout: time.Microsecond, OnStateChange: func(name, from, to string) {
		mu.Lock()
		defer mu.Unlock()
		changes = append(changes, from+">"+to)
	}}
	b, err := fleet.NewBreaker(rdb, "a", s, slack, fleet.WithStateMaxAge(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	l, err := fleet.NewLimiter(rdb, "a", tokenpace.Limit{RPS: 1e6}, slack, fleet.WithBreaker(b))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	if err := call(b, errBoom); err != nil {
		t.Fatalf("Allow() = %v, want nil", err)
	}
	b.Flush() // opens it, for 1 µs
	if _, _, err := l.Reserve(time.Now(), 1); err != nil {
		t.Fatalf("Reserve(1) = %v, want nil", err)
	}
	if _, err := b.Allow(); err != nil {
		t.Fatalf("Allow() after a reservation past the timeout = %v, want nil (half-open)", err)
	}
	mu.Lock()
	got := strings.Join(changes, " ")
	mu.Unlock()
	if want := "closed>open open>half-open"; got != want {
		t.Fatalf("state changes = %q, want %q", got, want)
	}
	other, err := fleet.NewBreaker(srv.client(t), "a", tokenpace.BreakerSettings{Failures: 1, Timeout: time.Hour}, slack)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	if st := other.State(); st != gobreaker.StateHalfOpen {
		t.Fatalf("other replica: State() = %v, want half-open", st)
	}
}

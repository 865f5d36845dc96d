package fleet_test

import (
	"errors"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/sony/gobreaker/v2"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/fleet"
)

// errorLog collects the errors a Breaker or Limiter reports.
type errorLog struct {
	mu   sync.Mutex
	errs []error
}

func (l *errorLog) option() fleet.Option {
	return fleet.WithErrorHandler(func(err error) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.errs = append(l.errs, err)
	})
}

func (l *errorLog) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.errs)
}

// The caller's wait with Redis gone is bounded by what it sends to Redis:
// after the first failure, nothing, for the whole back-off window.
func TestBreakerRedisKilled(t *testing.T) {
	srv := startRedis(t)
	var rt roundTrips
	var log errorLog
	b, err := fleet.NewBreaker(srv.client(t, &rt), "route-a", tokenpace.BreakerSettings{Failures: 2},
		slack, fleet.WithRedisBackoff(time.Hour), fleet.WithStateMaxAge(-1), log.option())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	if err := call(b, errBoom); err != nil {
		t.Fatalf("Allow() with Redis up = %v, want nil", err)
	}
	b.Flush()
	if log.len() != 0 {
		t.Fatalf("errors reported with Redis up = %v, want none", log.errs)
	}

	srv.stop()
	before := rt.cmds.Load()
	// The first call finds Redis gone and decides locally; so do the
	// others, without trying Redis: the local breaker of the same
	// settings opens at its own second failure.
	for i, want := range []error{nil, nil, gobreaker.ErrOpenState, gobreaker.ErrOpenState} {
		if err := call(b, errBoom); !errors.Is(err, want) {
			t.Fatalf("call #%d with Redis down: Allow() = %v, want %v", i, err, want)
		}
		b.Flush()
	}
	if got := b.State(); got != gobreaker.StateOpen {
		t.Errorf("State() with Redis down after two failures = %v, want open (local)", got)
	}
	if n := rt.cmds.Load() - before; n != 1 {
		t.Errorf("Redis commands tried by 4 calls, 4 outcomes and State with Redis down = %d, want 1", n)
	}
	if log.len() != 1 {
		t.Errorf("errors reported with Redis down = %d, want 1", log.len())
	}
}

func TestBreakerRedisBack(t *testing.T) {
	srv := startRedis(t)
	// A back-off window shorter than any step: each call after a failure
	// probes Redis.
	opts := []fleet.Option{fleet.WithRedisBackoff(time.Nanosecond), fleet.WithStateMaxAge(-1)}
	bs := breakers(t, srv, 2, tokenpace.BreakerSettings{Failures: 1}, opts...)
	a, other := bs[0], bs[1]
	if err := call(a, nil); err != nil {
		t.Fatalf("Allow() = %v, want nil", err)
	}

	srv.stop()
	if err := call(a, errBoom); err != nil {
		t.Fatalf("Allow() with Redis down = %v, want nil", err)
	}
	a.Flush()
	if err := call(a, nil); !errors.Is(err, gobreaker.ErrOpenState) {
		t.Fatalf("Allow() with Redis down after a failure = %v, want ErrOpenState (local)", err)
	}

	srv.restart()
	// The shared state, new and closed, decides again, not the local
	// breaker, which is still open; and outcomes reach the fleet.
	if err := call(a, errBoom); err != nil {
		t.Fatalf("Allow() with Redis back = %v, want nil (shared state)", err)
	}
	checkStates(t, bs, gobreaker.StateOpen)
	if err := call(other, nil); !errors.Is(err, gobreaker.ErrOpenState) {
		t.Fatalf("other replica: Allow() after a's failure with Redis back = %v, want ErrOpenState", err)
	}
}

// A route the fleet saw failing stays skipped when Redis goes away: a
// replica decides with a local breaker that starts from the shared state
// it read last, open, until that state's timeout ends, and then lets a
// probe through (half-open). So does a replica that read the state once
// and never saw a failure itself. Virtual time: the timeout passes at
// once, Redis being gone.
func TestBreakerRedisKilledWhileOpen(t *testing.T) {
	srv := startRedis(t)
	synctest.Test(t, func(t *testing.T) {
		const timeout = time.Minute
		// The margin covers the real time between the opening and the
		// reads of the state, by which the shared timeout ends earlier
		// than virtual time says.
		const margin = 5 * time.Second
		bs := breakers(t, srv, 2, tokenpace.BreakerSettings{Failures: 1, Timeout: timeout},
			fleet.WithStateMaxAge(-1), fleet.WithRedisBackoff(time.Hour))
		opener, reader := bs[0], bs[1]
		start := time.Now()
		if err := call(opener, errBoom); err != nil {
			t.Fatalf("opener: Allow() = %v, want nil", err)
		}
		opener.Flush() // the failure opens the shared state; opener reads it so
		if err := call(reader, nil); !errors.Is(err, gobreaker.ErrOpenState) {
			t.Fatalf("reader: Allow() with the shared state open = %v, want ErrOpenState", err)
		}

		srv.stop()
		check := func(when string, want error) {
			t.Helper()
			for i, b := range bs {
				if _, err := b.Allow(); !errors.Is(err, want) {
					t.Errorf("replica %d: Allow() %s with Redis gone = %v, want %v", i, when, err, want)
				}
			}
			if t.Failed() {
				t.FailNow()
			}
		}
		check("at once", gobreaker.ErrOpenState)
		time.Sleep(timeout - margin)
		check("before the open timeout ends", gobreaker.ErrOpenState)
		time.Sleep(time.Until(start.Add(timeout)))
		for i, b := range bs {
			done, err := b.Allow()
			if err != nil {
				t.Fatalf("replica %d: Allow() once the open timeout ended = %v, want nil (a half-open probe)", i, err)
			}
			if _, err := b.Allow(); !errors.Is(err, gobreaker.ErrTooManyRequests) {
				t.Fatalf("replica %d: Allow() beside the probe = %v, want ErrTooManyRequests", i, err)
			}
			done(nil)
			if err := call(b, nil); err != nil {
				t.Fatalf("replica %d: Allow() after the probe succeeded = %v, want nil (closed)", i, err)
			}
		}
	})
}

func TestLimiterRedisKilled(t *testing.T) {
	srv := startRedis(t)
	var rt roundTrips
	var log errorLog
	l, err := fleet.NewLimiter(srv.client(t, &rt), "a", tokenpace.Limit{TPM: 100},
		slack, fleet.WithRedisBackoff(time.Hour), log.option())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	srv.stop()
	before := rt.cmds.Load()
	if _, _, err := l.Reserve(time.Now(), 101); !errors.Is(err, fleet.ErrTooLarge) {
		t.Fatalf("Reserve(101) on TPM 100 with Redis down error = %v, want ErrTooLarge", err)
	}
	now := time.Now()
	// A local limit of the same TPM decides: the first 100 tokens pass at
	// once, the next wait, and a cancelled reservation gives them back.
	tests := []struct {
		tokens   int
		cancel   bool
		wantWait bool
	}{
		{100, false, false},
		{50, true, true},
		{50, false, true},
	}
	for i, tt := range tests {
		d, cancel, err := l.Reserve(now, tt.tokens)
		if err != nil || (d > 0) != tt.wantWait {
			t.Fatalf("Reserve #%d (%d tokens) with Redis down = %v, %v, want a wait: %v", i, tt.tokens, d, err, tt.wantWait)
		}
		if tt.cancel {
			cancel(now)
		}
	}
	l.Flush()
	if n := rt.cmds.Load() - before; n != 1 {
		t.Errorf("Redis commands tried by 4 reservations with Redis down = %d, want 1", n)
	}
	if log.len() != 1 {
		t.Errorf("errors reported with Redis down = %d, want 1", log.len())
	}
}

func TestLimiterRedisBack(t *testing.T) {
	srv := startRedis(t)
	var ls []*fleet.Limiter
	for range 2 {
		l, err := fleet.NewLimiter(srv.client(t), "a", tokenpace.Limit{TPM: 1000}, slack, fleet.WithRedisBackoff(time.Nanosecond))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		ls = append(ls, l)
	}
	a, other := ls[0], ls[1]
	srv.stop()
	// Local: a's own limit takes 900 tokens, which the fleet never sees.
	if d, _ := reserve(t, a, 900); d != 0 {
		t.Fatalf("Reserve(900) with Redis down = %v, want 0", d)
	}
	srv.restart()
	// Shared again: a's 900 are the fleet's, and the other replica's 200
	// wait for them.
	if d, _ := reserve(t, a, 900); d != 0 {
		t.Fatalf("Reserve(900) with Redis back = %v, want 0 (a fresh shared limit)", d)
	}
	if d, _ := reserve(t, other, 200); d <= 0 {
		t.Fatalf("other replica: Reserve(200) after a's 900 with Redis back = %v, want a wait", d)
	}
}

// A Redis that accepts connections but does not answer (here: stopped
// with SIGSTOP) costs a reservation WithTimeout, not the client's
// ReadTimeout (an hour here), when the client lets the context bound
// reads and writes (ContextTimeoutEnabled); the reservation is then
// decided locally.
//
// Another replica on the same client takes the fleet's burst while Redis
// answers, which dials the connection and loads the script. Made by this
// Limiter, with its 20 ms, that first reservation timed out on a loaded
// machine (5 runs in 140 under -race and GOMAXPROCS=1), and its fall-back
// took the local burst the hung one is checked to find.
func TestLimiterRedisHung(t *testing.T) {
	srv := startRedis(t)
	var log errorLog
	rdb := redis.NewClient(&redis.Options{Addr: srv.addr, ContextTimeoutEnabled: true, MaxRetries: -1,
		ReadTimeout: time.Hour, WriteTimeout: time.Hour})
	t.Cleanup(func() { rdb.Close() })
	limit := tokenpace.Limit{RPS: 1, Burst: 1}
	var otherLog errorLog
	other, err := fleet.NewLimiter(rdb, "a", limit, slack, otherLog.option())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	l, err := fleet.NewLimiter(rdb, "a", limit, fleet.WithTimeout(20*time.Millisecond),
		fleet.WithRedisBackoff(time.Hour), log.option())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	reserve(t, other, 1) // dials, loads the script; takes the fleet's burst
	if n := otherLog.len(); n != 0 {
		t.Fatalf("errors reported with Redis up = %d, want 0", n)
	}
	if err := srv.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatalf("SIGSTOP redis-server: %v", err)
	}
	t.Cleanup(func() { srv.cmd.Process.Signal(syscall.SIGCONT) })
	start := time.Now()
	d, _ := reserve(t, l, 1)
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("Reserve(1) with Redis hung took %v, want about WithTimeout (20ms)", took)
	}
	if d != 0 {
		t.Fatalf("Reserve(1) with Redis hung = %v, want 0 (the local limit's burst)", d)
	}
	if log.len() != 1 {
		t.Fatalf("errors reported with Redis hung = %d, want 1", log.len())
	}
}

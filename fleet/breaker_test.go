package fleet_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sony/gobreaker/v2"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/fleet"
)

var errBoom = errors.New("boom")

// slack is the Redis timeout of the tests' Breakers and Limiters, long
// enough that a loaded machine does not pass for a Redis outage.
var slack = fleet.WithTimeout(5 * time.Second)

// breakers returns n Breakers of the same name on srv, each with its own
// client, as n processes would have, closed when the test ends.
func breakers(t *testing.T, srv *redisServer, n int, s tokenpace.BreakerSettings, opts ...fleet.Option) []*fleet.Breaker {
	t.Helper()
	var out []*fleet.Breaker
	for range n {
		b, err := fleet.NewBreaker(srv.client(t), "route-a", s, append([]fleet.Option{slack}, opts...)...)
		if err != nil {
			t.Fatalf("NewBreaker(%+v) error = %v", s, err)
		}
		t.Cleanup(func() { b.Close() })
		out = append(out, b)
	}
	return out
}

// flush records the queued outcomes of every breaker.
func flush(bs ...*fleet.Breaker) {
	for _, b := range bs {
		b.Flush()
	}
}

// call passes one request with outcome through b and returns Allow's
// error.
func call(b *fleet.Breaker, outcome error) error {
	done, err := b.Allow()
	if err != nil {
		return err
	}
	done(outcome)
	return nil
}

// checkStates fails t unless every breaker reports want, once all their
// outcomes are recorded.
func checkStates(t *testing.T, bs []*fleet.Breaker, want gobreaker.State) {
	t.Helper()
	flush(bs...)
	for i, b := range bs {
		if got := b.State(); got != want {
			t.Fatalf("replica %d: State() = %v, want %v", i, got, want)
		}
	}
}

func TestBreakerTripsAndRecoversAcrossReplicas(t *testing.T) {
	srv := startRedis(t)
	const timeout = 100 * time.Millisecond
	var mu sync.Mutex
	var changes []string
	bs := breakers(t, srv, 2, tokenpace.BreakerSettings{Failures: 4, Timeout: timeout,
		OnStateChange: func(name, from, to string) {
			mu.Lock()
			defer mu.Unlock()
			changes = append(changes, fmt.Sprintf("%s:%s->%s", name, from, to))
		}})
	a, b := bs[0], bs[1]
	// Two failures each: neither replica alone reaches four.
	for i, br := range []*fleet.Breaker{a, b, a} {
		if err := call(br, errBoom); err != nil {
			t.Fatalf("failure #%d: Allow() = %v, want nil", i+1, err)
		}
		checkStates(t, bs, gobreaker.StateClosed)
	}
	if err := call(b, errBoom); err != nil {
		t.Fatalf("failure #4: Allow() = %v, want nil", err)
	}
	checkStates(t, bs, gobreaker.StateOpen)
	for i, br := range bs {
		if err := call(br, nil); !errors.Is(err, gobreaker.ErrOpenState) {
			t.Fatalf("replica %d: Allow() on an open breaker = %v, want ErrOpenState", i, err)
		}
	}

	// The breaker's timeout must pass in real time: Redis is a real
	// server, outside any synctest bubble.
	time.Sleep(timeout)
	checkStates(t, bs, gobreaker.StateHalfOpen)
	if err := call(b, nil); err != nil {
		t.Fatalf("half-open probe: Allow() = %v, want nil", err)
	}
	checkStates(t, bs, gobreaker.StateClosed)

	mu.Lock()
	defer mu.Unlock()
	want := []string{"route-a:closed->open", "route-a:open->half-open", "route-a:half-open->closed"}
	if fmt.Sprint(changes) != fmt.Sprint(want) {
		t.Errorf("state changes = %v, want %v", changes, want)
	}
}

func TestBreakerHalfOpenFailureReopens(t *testing.T) {
	srv := startRedis(t)
	const timeout = 100 * time.Millisecond
	bs := breakers(t, srv, 2, tokenpace.BreakerSettings{Failures: 1, Timeout: timeout})
	if err := call(bs[0], errBoom); err != nil {
		t.Fatalf("Allow() = %v, want nil", err)
	}
	checkStates(t, bs, gobreaker.StateOpen)
	time.Sleep(timeout)
	if err := call(bs[1], errBoom); err != nil {
		t.Fatalf("half-open probe: Allow() = %v, want nil", err)
	}
	checkStates(t, bs, gobreaker.StateOpen)
}

func TestBreakerIgnoresCallerErrors(t *testing.T) {
	srv := startRedis(t)
	bs := breakers(t, srv, 2, tokenpace.BreakerSettings{Failures: 2})
	ctxErr, cancel := context.WithCancel(context.Background())
	cancel()
	for i := range 6 {
		if err := call(bs[i%2], ctxErr.Err()); err != nil {
			t.Fatalf("Allow() = %v, want nil", err)
		}
	}
	checkStates(t, bs, gobreaker.StateClosed)
}

func TestBreakerRecreatesLostState(t *testing.T) {
	srv := startRedis(t)
	rdb := srv.client(t)
	bs := breakers(t, srv, 1, tokenpace.BreakerSettings{Failures: 2})
	b := bs[0]
	if err := call(b, errBoom); err != nil {
		t.Fatalf("Allow() = %v, want nil", err)
	}
	b.Flush()
	if err := rdb.FlushAll(context.Background()).Err(); err != nil {
		t.Fatalf("FLUSHALL: %v", err)
	}
	// A new closed state replaces the lost one: the failure before the
	// loss is forgotten, and the next two open the breaker.
	if err := call(b, errBoom); err != nil {
		t.Fatalf("Allow() after the state was lost = %v, want nil", err)
	}
	checkStates(t, bs, gobreaker.StateClosed)
	if err := call(b, errBoom); err != nil {
		t.Fatalf("Allow() = %v, want nil", err)
	}
	checkStates(t, bs, gobreaker.StateOpen)
}

func TestNewBreakerInvalid(t *testing.T) {
	srv := startRedis(t)
	rdb := srv.client(t)
	if _, err := fleet.NewBreaker(nil, "a", tokenpace.BreakerSettings{}); err == nil {
		t.Errorf("NewBreaker(nil client) error = nil, want an error")
	}
	if _, err := fleet.NewBreaker(rdb, "", tokenpace.BreakerSettings{}); err == nil {
		t.Errorf("NewBreaker(empty name) error = nil, want an error")
	}
	if _, err := fleet.NewBreaker(rdb, "a", tokenpace.BreakerSettings{Disabled: true}); err == nil {
		t.Errorf("NewBreaker(Disabled) error = nil, want an error")
	}
}

func TestBreakerCountsConcurrentFailures(t *testing.T) {
	srv := startRedis(t)
	const replicas, each = 4, 5
	bs := breakers(t, srv, replicas, tokenpace.BreakerSettings{Failures: replicas * each})
	var wg sync.WaitGroup
	errs := make(chan error, replicas*each)
	for _, b := range bs {
		for range each {
			wg.Go(func() {
				if err := call(b, errBoom); err != nil {
					errs <- err
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("Allow() = %v, want nil", err)
	}
	// Every failure counted, none lost to a concurrent update: the
	// fleet's twentieth opens the breaker.
	checkStates(t, bs, gobreaker.StateOpen)
}

func TestBreakerCountsAddUp(t *testing.T) {
	srv := startRedis(t)
	const replicas, each = 4, 25
	bs := breakers(t, srv, replicas, tokenpace.BreakerSettings{Failures: 1000})
	var wg sync.WaitGroup
	for _, b := range bs {
		for i := range each {
			wg.Go(func() {
				outcome := error(nil)
				if i%5 == 0 {
					outcome = errBoom
				}
				call(b, outcome)
			})
		}
	}
	wg.Wait()
	flush(bs...)
	want := gobreaker.Counts{Requests: replicas * each, TotalSuccesses: replicas * each * 4 / 5, TotalFailures: replicas * each / 5}
	for i, b := range bs {
		got := b.Counts()
		got.ConsecutiveSuccesses, got.ConsecutiveFailures = 0, 0 // depend on the order
		if got != want {
			t.Errorf("replica %d: Counts() = %+v, want %+v", i, got, want)
		}
	}
}

func TestBreakerReadyToTrip(t *testing.T) {
	srv := startRedis(t)
	// Open at the third failure of the fleet, consecutive or not.
	bs := breakers(t, srv, 2, tokenpace.BreakerSettings{
		ReadyToTrip: func(c gobreaker.Counts) bool { return c.TotalFailures >= 3 },
	})
	for i, o := range []error{errBoom, nil, errBoom} {
		if err := call(bs[i%2], o); err != nil {
			t.Fatalf("call #%d: Allow() = %v, want nil", i, err)
		}
	}
	checkStates(t, bs, gobreaker.StateClosed)
	if err := call(bs[1], errBoom); err != nil {
		t.Fatalf("call #3: Allow() = %v, want nil", err)
	}
	checkStates(t, bs, gobreaker.StateOpen)
}

// TestBreakerCallbacksPanic: the caller's ReadyToTrip and OnStateChange run
// on the Breaker's own goroutines (the batcher's, the lease refill's), where
// a panic would end the program; as with a Router's own breaker, a panic in
// ReadyToTrip counts as false and one in OnStateChange is dropped, and the
// state moves as it would without them.
func TestBreakerCallbacksPanic(t *testing.T) {
	srv := startRedis(t)
	trips := breakers(t, srv, 1, tokenpace.BreakerSettings{
		ReadyToTrip: func(gobreaker.Counts) bool { panic("the caller's bug") },
	})
	changes := breakers(t, srv, 1, tokenpace.BreakerSettings{
		Failures:      1,
		OnStateChange: func(string, string, string) { panic("the caller's bug") },
	}, fleet.WithPrefix("other:"))
	for _, b := range []*fleet.Breaker{trips[0], changes[0]} {
		if err := call(b, errBoom); err != nil {
			t.Fatalf("Allow() = %v, want nil", err)
		}
	}
	checkStates(t, trips, gobreaker.StateClosed)
	checkStates(t, changes, gobreaker.StateOpen)
	if err := call(changes[0], nil); !errors.Is(err, gobreaker.ErrOpenState) {
		t.Errorf("Allow() after the trip = %v, want gobreaker.ErrOpenState", err)
	}
}

func TestBreakerOutcomesAfterClose(t *testing.T) {
	srv := startRedis(t)
	var closed atomic.Int64
	bs := breakers(t, srv, 1, tokenpace.BreakerSettings{Failures: 1}, fleet.WithErrorHandler(func(err error) {
		if errors.Is(err, fleet.ErrClosed) {
			closed.Add(1)
		}
	}))
	b := bs[0]
	done, err := b.Allow()
	if err != nil {
		t.Fatalf("Allow() = %v, want nil", err)
	}
	b.Close()
	done(errBoom)
	if got := closed.Load(); got != 1 {
		t.Errorf("ErrClosed reported for an outcome after Close = %d times, want 1", got)
	}
	if got := b.State(); got != gobreaker.StateClosed {
		t.Errorf("State() after an outcome that ended after Close = %v, want closed", got)
	}
}

// A breaker opened by one replica is seen by another at its first Allow
// once the state it read last is WithStateMaxAge old: never later.
// Virtual time: the max age passes at once; Redis, a real server, keeps
// real time (the breaker's 60 s timeout does not pass).
func TestBreakerOpenSeenWithinMaxAge(t *testing.T) {
	srv := startRedis(t)
	synctest.Test(t, func(t *testing.T) {
		const maxAge = 100 * time.Millisecond
		bs := breakers(t, srv, 2, tokenpace.BreakerSettings{Failures: 2}, fleet.WithStateMaxAge(maxAge))
		a, b := bs[0], bs[1]
		if err := call(b, nil); err != nil {
			t.Fatalf("b: Allow() on a new breaker = %v, want nil", err)
		}
		b.Flush()
		start := time.Now()
		call(a, errBoom)
		call(a, errBoom)
		a.Flush()
		if s := a.State(); s != gobreaker.StateOpen {
			t.Fatalf("a: State() after the fleet's two failures = %v, want open", s)
		}
		// b decides from the closed state it read, for at most maxAge.
		time.Sleep(maxAge - time.Since(start) - time.Millisecond)
		if err := call(b, nil); err != nil {
			t.Fatalf("b: Allow() %v after the state it read = %v, want nil (its state is still fresh)", time.Since(start), err)
		}
		time.Sleep(time.Millisecond)
		if err := call(b, nil); !errors.Is(err, gobreaker.ErrOpenState) {
			t.Fatalf("b: Allow() %v after the state it read = %v, want ErrOpenState", time.Since(start), err)
		}
		b.Flush()
	})
}

// An Allow that finds the state it read half WithStateMaxAge old reads
// it again in the background: the next Allow sees a change made
// elsewhere meanwhile, and no Allow waits for Redis.
func TestBreakerReadsAhead(t *testing.T) {
	srv := startRedis(t)
	synctest.Test(t, func(t *testing.T) {
		const maxAge = 100 * time.Millisecond
		var rt roundTrips
		a := breakers(t, srv, 1, tokenpace.BreakerSettings{Failures: 2}, fleet.WithStateMaxAge(maxAge))[0]
		b, err := fleet.NewBreaker(srv.client(t, &rt), "route-a", tokenpace.BreakerSettings{Failures: 2}, slack, fleet.WithStateMaxAge(maxAge))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		if _, err := b.Allow(); err != nil { // reads the state
			t.Fatalf("b: Allow() on a new breaker = %v, want nil", err)
		}
		call(a, errBoom)
		call(a, errBoom)
		a.Flush()
		time.Sleep(maxAge / 2)
		before := rt.cmds.Load()
		if _, err := b.Allow(); err != nil {
			t.Fatalf("b: Allow() at half the max age = %v, want nil (the state it read)", err)
		}
		synctest.Wait() // the read it started in the background ends
		if _, err := b.Allow(); !errors.Is(err, gobreaker.ErrOpenState) {
			t.Fatalf("b: Allow() after its read ahead = %v, want ErrOpenState", err)
		}
		if n := rt.cmds.Load() - before; n != 1 {
			t.Fatalf("b: Redis commands of two Allows and a read ahead = %d, want 1", n)
		}
	})
}

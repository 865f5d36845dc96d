package fleet_test

import (
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/fleet"
)

// checkLeft fails t unless the shared limit of the name replicas uses
// admits exactly n more requests at once: an exact limiter reserves n
// without a wait, and the next one waits.
func checkLeft(t *testing.T, srv *redisServer, limit tokenpace.Limit, n int) {
	t.Helper()
	exact := replicas1(t, srv, limit)
	for i := range n {
		if d, _ := reserve(t, exact, 1); d != 0 {
			t.Fatalf("exact: reservation %d of the %d left = %v, want 0", i, n, d)
		}
	}
	if d, _ := reserve(t, exact, 1); d <= 0 {
		t.Fatalf("exact: reservation past the %d left = %v, want a wait", n, d)
	}
}

// closeAtRoundTrip makes l's first leasing round trip close l: once the
// round trip returned, before the lease hears of it, Close starts, and
// the round trip goes on once Close has returned or waits for it. It
// returns a func that waits for Close to return.
func closeAtRoundTrip(l *fleet.Limiter) (wait func()) {
	closed, waiting := make(chan struct{}), make(chan struct{}, 1)
	var once sync.Once
	fleet.SetLeaseHooks(l, fleet.LeaseHooks{
		RoundTrip: func() {
			once.Do(func() {
				go func() {
					l.Close()
					close(closed)
				}()
				select {
				case <-closed:
				case <-waiting:
				}
			})
		},
		CloseWaits: func() {
			select {
			case waiting <- struct{}{}:
			default:
			}
		},
	})
	return func() { <-closed }
}

// leasedLimiter returns a Limiter on its own client of srv made
// WithLease(n, ttl), whose errors go to log, closed when the test ends.
func leasedLimiter(t *testing.T, srv *redisServer, limit tokenpace.Limit, n int, ttl time.Duration, log *errorLog) *fleet.Limiter {
	t.Helper()
	l, err := fleet.NewLimiter(srv.client(t), "route-a", limit, slack, fleet.WithLease(n, ttl), log.option())
	if err != nil {
		t.Fatalf("NewLimiter(%+v) error = %v", limit, err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// A reservation that leases while Close runs: Close waits for its round
// trip and gives the lease back; the reservation keeps its own request.
// A reservation after Close leases nothing.
func TestLimiterCloseDuringLeasingReservation(t *testing.T) {
	srv := startRedis(t)
	var log errorLog
	limit := tokenpace.Limit{RPS: 0.001, Burst: 4}
	l := leasedLimiter(t, srv, limit, 2, time.Hour, &log)
	wait := closeAtRoundTrip(l)
	if d, _, err := l.Reserve(time.Now(), 1); d != 0 || err != nil {
		t.Fatalf("Reserve(1) during Close = %v, %v, want 0, nil", d, err)
	}
	wait()
	if d, _, err := l.Reserve(time.Now(), 1); d != 0 || err != nil {
		t.Fatalf("Reserve(1) after Close = %v, %v, want 0, nil", d, err)
	}
	if n := log.len(); n != 0 {
		t.Errorf("errors reported = %v, want none", log.errs)
	}
	// The burst of 4 less the two reservations: the lease came back.
	checkLeft(t, srv, limit, 2)
}

// A top-up under way when Close runs: Close waits for it and gives it
// back.
func TestLimiterCloseDuringTopUp(t *testing.T) {
	srv := startRedis(t)
	var log errorLog
	limit := tokenpace.Limit{RPS: 0.001, Burst: 10}
	l := leasedLimiter(t, srv, limit, 4, time.Hour, &log)
	reserve(t, l, 1) // takes 1 and leases 4
	wait := closeAtRoundTrip(l)
	for i := range 3 { // the third leaves 1 of 4: the lease is topped up
		if d, _ := reserve(t, l, 1); d != 0 {
			t.Fatalf("reservation %d from the lease = %v, want 0", i, d)
		}
	}
	wait()
	if n := log.len(); n != 0 {
		t.Errorf("errors reported = %v, want none", log.errs)
	}
	checkLeft(t, srv, limit, 10-4)
}

// A lease that expires as Close runs: what it held comes back.
// Virtual time: the ttl passes at once; Redis keeps real time.
func TestLimiterCloseAsLeaseExpires(t *testing.T) {
	srv := startRedis(t)
	limit := tokenpace.Limit{RPS: 0.001, Burst: 4}
	synctest.Test(t, func(t *testing.T) {
		const ttl = 100 * time.Millisecond
		var log errorLog
		l := leasedLimiter(t, srv, limit, 2, ttl, &log)
		fleet.SetLeaseHooks(l, fleet.LeaseHooks{Expired: func() { l.Close() }})
		reserve(t, l, 1) // takes 1 and leases 2
		time.Sleep(ttl)
		synctest.Wait()
		if n := log.len(); n != 0 {
			t.Errorf("errors reported = %v, want none", log.errs)
		}
		checkLeft(t, srv, limit, 3)
	})
}

// Cancels that race Close are either given back or reported: the counts
// never go wrong silently, whatever the interleaving.
func TestLimiterCancelsRacingClose(t *testing.T) {
	srv := startRedis(t)
	const burst, n = 40, 20
	limit := tokenpace.Limit{RPS: 0.001, Burst: burst}
	var log errorLog
	l, err := fleet.NewLimiter(srv.client(t), "route-a", limit, slack, log.option())
	if err != nil {
		t.Fatal(err)
	}
	cancels := make([]func(time.Time), n)
	for i := range cancels {
		_, cancels[i] = reserve(t, l, 1)
	}
	var wg sync.WaitGroup
	for _, cancel := range cancels {
		wg.Go(func() { cancel(time.Now()) })
	}
	l.Close()
	wg.Wait()
	lost := 0
	for _, err := range log.errs {
		if !strings.Contains(err.Error(), "after Close") {
			t.Fatalf("error reported = %v, want only cancels after Close", err)
		}
		lost++
	}
	checkLeft(t, srv, limit, burst-lost)
}

// Outcomes that race a Breaker's Close are either recorded or reported
// as ErrClosed: none is lost silently, whatever the interleaving.
func TestBreakerOutcomesRacingClose(t *testing.T) {
	srv := startRedis(t)
	const n = 50
	var closed sync.WaitGroup
	var mu sync.Mutex
	reported := 0
	b := breakers(t, srv, 1, tokenpace.BreakerSettings{}, fleet.WithErrorHandler(func(err error) {
		if !errors.Is(err, fleet.ErrClosed) {
			t.Errorf("error reported = %v, want ErrClosed only", err)
		}
		mu.Lock()
		reported++
		mu.Unlock()
	}))[0]
	dones := make([]func(error), n)
	for i := range dones {
		done, err := b.Allow()
		if err != nil {
			t.Fatalf("Allow() = %v, want nil", err)
		}
		dones[i] = done
	}
	for _, done := range dones {
		closed.Go(func() { done(nil) })
	}
	b.Close()
	closed.Wait()
	other := breakers(t, srv, 1, tokenpace.BreakerSettings{})[0]
	if got := int(other.Counts().TotalSuccesses) + reported; got != n {
		t.Fatalf("successes recorded %d + reported ErrClosed %d = %d, want %d", other.Counts().TotalSuccesses, reported, got, n)
	}
}

// An error handler may close the Limiter that reports: when a leasing
// reservation finds Redis gone, and when a reservation taken from a
// lease is cancelled after Close.
func TestLimiterErrorHandlerCloses(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T, srv *redisServer, l *fleet.Limiter)
	}{
		{"reservation with Redis gone", func(t *testing.T, srv *redisServer, l *fleet.Limiter) {
			srv.stop()
			if d, _, err := l.Reserve(time.Now(), 1); d != 0 || err != nil {
				t.Fatalf("Reserve(1) with Redis gone = %v, %v, want 0, nil (local)", d, err)
			}
		}},
		{"cancel after Close", func(t *testing.T, srv *redisServer, l *fleet.Limiter) {
			reserve(t, l, 1) // takes 1 and leases 2
			_, cancel := reserve(t, l, 1)
			l.Close()
			cancel(time.Now())
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startRedis(t)
			var l *fleet.Limiter
			var closes atomic.Int64
			onErr := fleet.WithErrorHandler(func(error) {
				closes.Add(1)
				l.Close()
			})
			var err error
			l, err = fleet.NewLimiter(srv.client(t), "route-a", tokenpace.Limit{RPS: 0.001, Burst: 4}, slack,
				fleet.WithLease(2, time.Hour), onErr)
			if err != nil {
				t.Fatal(err)
			}
			tt.run(t, srv, l)
			if n := closes.Load(); n != 1 {
				t.Fatalf("errors reported = %d, want 1", n)
			}
		})
	}
}

// An error handler may flush or close the Breaker or Limiter that
// reports from its background batches: the errors of a batch are
// reported once it is sent.
func TestErrorHandlerClosesFromBatch(t *testing.T) {
	t.Run("breaker", func(t *testing.T) {
		srv := startRedis(t)
		var b *fleet.Breaker
		var reported atomic.Int64
		b = breakers(t, srv, 1, tokenpace.BreakerSettings{}, fleet.WithErrorHandler(func(error) {
			reported.Add(1)
			b.Close()
		}))[0]
		done, err := b.Allow()
		if err != nil {
			t.Fatalf("Allow() = %v, want nil", err)
		}
		srv.stop()
		done(nil)
		b.Flush() // records it: Redis fails
		if n := reported.Load(); n != 1 {
			t.Fatalf("errors reported = %d, want 1", n)
		}
	})
	t.Run("limiter", func(t *testing.T) {
		srv := startRedis(t)
		var l *fleet.Limiter
		var reported atomic.Int64
		var err error
		l, err = fleet.NewLimiter(srv.client(t), "route-a", tokenpace.Limit{RPS: 1}, slack, fleet.WithErrorHandler(func(error) {
			reported.Add(1)
			l.Close()
		}))
		if err != nil {
			t.Fatal(err)
		}
		_, cancel := reserve(t, l, 1)
		srv.stop()
		cancel(time.Now())
		l.Flush() // gives it back: Redis fails
		if n := reported.Load(); n != 1 {
			t.Fatalf("errors reported = %d, want 1", n)
		}
	})
}

// An error handler may close a Breaker from the read it started in the
// background. Virtual time: half the max age passes at once.
func TestBreakerErrorHandlerClosesFromReadAhead(t *testing.T) {
	srv := startRedis(t)
	synctest.Test(t, func(t *testing.T) {
		const maxAge = 100 * time.Millisecond
		var b *fleet.Breaker
		var reported atomic.Int64
		b = breakers(t, srv, 1, tokenpace.BreakerSettings{}, fleet.WithStateMaxAge(maxAge), fleet.WithErrorHandler(func(error) {
			reported.Add(1)
			b.Close()
		}))[0]
		if _, err := b.Allow(); err != nil { // reads the state
			t.Fatalf("Allow() = %v, want nil", err)
		}
		time.Sleep(maxAge / 2)
		srv.stop()
		if _, err := b.Allow(); err != nil { // the state it read; reads again in the background
			t.Fatalf("Allow() at half the max age = %v, want nil", err)
		}
		synctest.Wait()
		b.Close()
		if n := reported.Load(); n != 1 {
			t.Fatalf("errors reported = %d, want 1", n)
		}
	})
}

// An error handler may close a Limiter from the top-up of its lease.
func TestLimiterErrorHandlerClosesFromTopUp(t *testing.T) {
	srv := startRedis(t)
	var l *fleet.Limiter
	closed := make(chan struct{})
	var first atomic.Bool
	var err error
	l, err = fleet.NewLimiter(srv.client(t), "route-a", tokenpace.Limit{RPS: 0.001, Burst: 10}, slack,
		fleet.WithLease(4, time.Hour), fleet.WithErrorHandler(func(error) {
			if first.CompareAndSwap(false, true) { // Close reports too: the lease it gives back is lost
				l.Close()
				close(closed)
			}
		}))
	if err != nil {
		t.Fatal(err)
	}
	reserve(t, l, 1) // takes 1 and leases 4
	srv.stop()
	for i := range 3 { // the third leaves 1 of 4: the top-up finds Redis gone
		if d, _ := reserve(t, l, 1); d != 0 {
			t.Fatalf("reservation %d from the lease = %v, want 0", i, d)
		}
	}
	<-closed
}

// An error handler may close the Breaker or Limiter whose background
// goroutine sent the failed batch (no Flush): Close returns, and so do
// the Close calls after it.
func TestErrorHandlerClosesFromBackgroundBatch(t *testing.T) {
	// closes waits, with a hang guard, for the handler's Close to return.
	closes := func(t *testing.T, closed <-chan struct{}, reported *atomic.Int64) {
		t.Helper()
		select {
		case <-closed:
		case <-time.After(10 * time.Second):
			t.Fatalf("Close from the error handler of a background batch has not returned after 10s (errors reported %d)", reported.Load())
		}
	}
	t.Run("breaker", func(t *testing.T) {
		srv := startRedis(t)
		var b *fleet.Breaker
		var reported atomic.Int64
		closed := make(chan struct{})
		b = breakers(t, srv, 1, tokenpace.BreakerSettings{}, fleet.WithErrorHandler(func(error) {
			if reported.Add(1) == 1 {
				b.Close()
				close(closed)
			}
		}))[0]
		done, err := b.Allow()
		if err != nil {
			t.Fatalf("Allow() = %v, want nil", err)
		}
		srv.stop()
		done(nil) // sent by the batcher's goroutine: Redis fails
		closes(t, closed, &reported)
		b.Close()
	})
	t.Run("limiter", func(t *testing.T) {
		srv := startRedis(t)
		var l *fleet.Limiter
		var reported atomic.Int64
		closed := make(chan struct{})
		var err error
		l, err = fleet.NewLimiter(srv.client(t), "route-a", tokenpace.Limit{RPS: 1}, slack, fleet.WithErrorHandler(func(error) {
			if reported.Add(1) == 1 {
				l.Close()
				close(closed)
			}
		}))
		if err != nil {
			t.Fatal(err)
		}
		_, cancel := reserve(t, l, 1)
		srv.stop()
		cancel(time.Now()) // given back by the batcher's goroutine: Redis fails
		closes(t, closed, &reported)
		l.Close()
	})
}

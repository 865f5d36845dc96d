package fleet_test

import (
	"testing"
	"time"

	"github.com/sony/gobreaker/v2"
	"golang.org/x/time/rate"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/fleet"
)

// BenchmarkBreaker compares one request through a process-local two-step
// breaker (the Router's own) with one through the shared Breaker on a
// loopback Redis: Allow, then the outcome ("redis"), or Allow alone, the
// part on the admission path ("redis-allow").
func BenchmarkBreaker(b *testing.B) {
	b.Run("local", func(b *testing.B) {
		cb := gobreaker.NewTwoStepCircuitBreaker[struct{}](gobreaker.Settings{Name: "a"})
		for b.Loop() {
			done, err := cb.Allow()
			if err != nil {
				b.Fatal(err)
			}
			done(nil)
		}
	})
	b.Run("redis", func(b *testing.B) {
		srv := startRedis(b)
		br, err := fleet.NewBreaker(srv.client(b), "a", tokenpace.BreakerSettings{})
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			done, err := br.Allow()
			if err != nil {
				b.Fatal(err)
			}
			done(nil)
		}
	})
	b.Run("redis-allow", func(b *testing.B) {
		srv := startRedis(b)
		br, err := fleet.NewBreaker(srv.client(b), "a", tokenpace.BreakerSettings{})
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := br.Allow(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkReserve compares a reservation (and its cancellation) on a
// process-local golang.org/x/time/rate limiter with one on the shared
// Limiter on a loopback Redis.
func BenchmarkReserve(b *testing.B) {
	b.Run("local", func(b *testing.B) {
		l := rate.NewLimiter(rate.Limit(1e9), 1e9)
		for b.Loop() {
			now := time.Now()
			l.ReserveN(now, 100).CancelAt(now)
		}
	})
	b.Run("redis", func(b *testing.B) {
		srv := startRedis(b)
		l, err := fleet.NewLimiter(srv.client(b), "a", tokenpace.Limit{TPM: 1e9})
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			now := time.Now()
			_, cancel, err := l.Reserve(now, 100)
			if err != nil {
				b.Fatal(err)
			}
			cancel(now)
		}
	})
}

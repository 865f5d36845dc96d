package fleet_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
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

// BenchmarkAdmission measures what one request through a Route with a
// breaker and a limiter costs its caller: Allow, Reserve, and done with
// its outcome. "local" is the Router's own breaker and limiter; "redis"
// the shared ones on a loopback Redis, the Limiter made WithBreaker;
// "redis-down" the same after Redis was stopped, on a client with
// go-redis's default options (retries and all). cmds/op counts the Redis
// commands sent, outcomes recorded in the background included.
func BenchmarkAdmission(b *testing.B) {
	b.Run("local", func(b *testing.B) {
		cb := gobreaker.NewTwoStepCircuitBreaker[struct{}](gobreaker.Settings{Name: "a"})
		l := rate.NewLimiter(rate.Limit(1e9), 1e9)
		for b.Loop() {
			done, err := cb.Allow()
			if err != nil {
				b.Fatal(err)
			}
			l.ReserveN(time.Now(), 100)
			done(nil)
		}
	})
	admit := func(b *testing.B, down bool) {
		srv := startRedis(b)
		var rt roundTrips
		rdb := redis.NewClient(&redis.Options{Addr: srv.addr})
		rdb.AddHook(&rt)
		defer rdb.Close()
		br, err := fleet.NewBreaker(rdb, "a", tokenpace.BreakerSettings{})
		if err != nil {
			b.Fatal(err)
		}
		l, err := fleet.NewLimiter(rdb, "a", tokenpace.Limit{RPS: 1e9, TPM: 1e9}, fleet.WithBreaker(br))
		if err != nil {
			b.Fatal(err)
		}
		if down {
			srv.stop()
		}
		start := rt.cmds.Load()
		for b.Loop() {
			done, err := br.Allow()
			if err != nil {
				b.Fatal(err)
			}
			if _, _, err := l.Reserve(time.Now(), 100); err != nil {
				b.Fatal(err)
			}
			done(nil)
		}
		br.Close()
		l.Close()
		b.ReportMetric(float64(rt.cmds.Load()-start)/float64(b.N), "cmds/op")
	}
	b.Run("redis", func(b *testing.B) { admit(b, false) })
	b.Run("redis-down", func(b *testing.B) { admit(b, true) })
	// The floor of any admission that asks Redis: one PING.
	b.Run("ping", func(b *testing.B) {
		srv := startRedis(b)
		rdb := redis.NewClient(&redis.Options{Addr: srv.addr})
		defer rdb.Close()
		for b.Loop() {
			if err := rdb.Ping(context.Background()).Err(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

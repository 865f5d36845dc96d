package fleet_test

import (
	"context"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/sony/gobreaker/v2"
	"golang.org/x/time/rate"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/fleet"
)

// benchClient returns a client of srv with go-redis's default options
// (retries and all), whose commands rt counts.
func benchClient(b *testing.B, srv *redisServer, rt *roundTrips) *redis.Client {
	return benchClientOptions(b, &redis.Options{Addr: srv.addr}, rt)
}

// benchClientOptions returns a client with options o, whose commands rt
// counts.
func benchClientOptions(b *testing.B, o *redis.Options, rt *roundTrips) *redis.Client {
	rdb := redis.NewClient(o)
	rdb.AddHook(rt)
	b.Cleanup(func() { rdb.Close() })
	return rdb
}

// reportCmds reports the Redis commands per operation since start.
func reportCmds(b *testing.B, rt *roundTrips, start int64) {
	b.ReportMetric(float64(rt.cmds.Load()-start)/float64(b.N), "cmds/op")
}

// BenchmarkBreaker compares one request through a process-local two-step
// breaker (the Router's own) with one through the shared Breaker on a
// loopback Redis: Allow, then the outcome ("redis"), or Allow alone, the
// part on the admission path ("redis-allow"). cmds/op counts the Redis
// commands, outcomes recorded in the background included.
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
		var rt roundTrips
		br, err := fleet.NewBreaker(benchClient(b, srv, &rt), "a", tokenpace.BreakerSettings{})
		if err != nil {
			b.Fatal(err)
		}
		start := rt.cmds.Load()
		for b.Loop() {
			done, err := br.Allow()
			if err != nil {
				b.Fatal(err)
			}
			done(nil)
		}
		br.Close()
		reportCmds(b, &rt, start)
	})
	b.Run("redis-allow", func(b *testing.B) {
		srv := startRedis(b)
		var rt roundTrips
		br, err := fleet.NewBreaker(benchClient(b, srv, &rt), "a", tokenpace.BreakerSettings{})
		if err != nil {
			b.Fatal(err)
		}
		start := rt.cmds.Load()
		for b.Loop() {
			if _, err := br.Allow(); err != nil {
				b.Fatal(err)
			}
		}
		br.Close()
		reportCmds(b, &rt, start)
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
		var rt roundTrips
		l, err := fleet.NewLimiter(benchClient(b, srv, &rt), "a", tokenpace.Limit{TPM: 1e9})
		if err != nil {
			b.Fatal(err)
		}
		start := rt.cmds.Load()
		for b.Loop() {
			now := time.Now()
			_, cancel, err := l.Reserve(now, 100)
			if err != nil {
				b.Fatal(err)
			}
			cancel(now)
		}
		l.Close()
		reportCmds(b, &rt, start)
	})
}

// leaseRequests is the lease of the benchmarks' leased Limiters.
const leaseRequests = 16

// outage is what happens to Redis before BenchmarkAdmission's calls.
type outage int

const (
	up      outage = iota
	stopped        // killed
	hung           // stopped with SIGSTOP: connections open, no answer
	hungCtx        // the same, the client made with ContextTimeoutEnabled
)

// pace is the pause between admissions of the "-paced" benchmarks: a
// replica admitting at most 5,000 requests a second, which leaves a lease
// topped up in the background the time to come back.
const pace = 200 * time.Microsecond

// BenchmarkAdmission measures what one request through a Route with a
// breaker and a limiter costs its caller: Allow, Reserve, and done with
// its outcome. "local" is the Router's own breaker and limiter; "redis"
// the shared ones on a loopback Redis, the Limiter made WithBreaker;
// "redis-leased" the same WithLease(leaseRequests, 0) (most
// admissions cost no round trip), back to back; "-paced" with a pause of
// pace between admissions, outside the time measured per call (ns/op
// includes it); "redis-down" the same as "redis" after Redis was
// stopped, and "redis-down-tuned"
// with the client options of the package's example (no retries, 10 ms
// timeouts); "redis-hung" the same as "redis" after Redis was stopped
// with SIGSTOP (it accepts connections and does not answer), and
// "redis-hung-ctx" with a client made with ContextTimeoutEnabled (and no
// retries), so that WithTimeout bounds its reads; "ping" one PING, the
// floor of anything that asks Redis. cmds/op counts the Redis commands,
// outcomes recorded in the background included; p50-µs, p99-µs and
// max-µs are the median, 99th percentile and slowest call.
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
	admit := func(b *testing.B, outage outage, tuned bool, pace time.Duration, opts ...fleet.Option) {
		srv := startRedis(b)
		var rt roundTrips
		o := &redis.Options{Addr: srv.addr}
		if tuned {
			o = &redis.Options{Addr: srv.addr, MaxRetries: -1, DialerRetries: 1,
				DialTimeout: 10 * time.Millisecond, ReadTimeout: 10 * time.Millisecond,
				WriteTimeout: 10 * time.Millisecond, PoolTimeout: 10 * time.Millisecond}
		}
		if outage == hungCtx {
			o.ContextTimeoutEnabled, o.MaxRetries = true, -1
		}
		rdb := benchClientOptions(b, o, &rt)
		br, err := fleet.NewBreaker(rdb, "a", tokenpace.BreakerSettings{})
		if err != nil {
			b.Fatal(err)
		}
		l, err := fleet.NewLimiter(rdb, "a", tokenpace.Limit{RPS: 1e9, TPM: 1e9}, append(opts, fleet.WithBreaker(br))...)
		if err != nil {
			b.Fatal(err)
		}
		switch outage {
		case stopped:
			srv.stop()
		case hung, hungCtx:
			// One reservation first, so that the script is loaded and
			// the connection open.
			if _, _, err := l.Reserve(time.Now(), 100); err != nil {
				b.Fatal(err)
			}
			srv.cmd.Process.Signal(syscall.SIGSTOP)
			b.Cleanup(func() { srv.cmd.Process.Signal(syscall.SIGCONT) })
		}
		start := rt.cmds.Load()
		var took []time.Duration
		for b.Loop() {
			t0 := time.Now()
			done, err := br.Allow()
			if err != nil {
				b.Fatal(err)
			}
			if _, _, err := l.Reserve(t0, 100); err != nil {
				b.Fatal(err)
			}
			done(nil)
			took = append(took, time.Since(t0))
			if pace > 0 {
				time.Sleep(pace)
			}
		}
		br.Close()
		l.Close()
		reportCmds(b, &rt, start)
		slices.Sort(took)
		b.ReportMetric(float64(took[len(took)/2].Nanoseconds())/1e3, "p50-µs")
		b.ReportMetric(float64(took[len(took)*99/100].Nanoseconds())/1e3, "p99-µs")
		b.ReportMetric(float64(took[len(took)-1].Microseconds()), "max-µs")
	}
	b.Run("redis", func(b *testing.B) { admit(b, up, false, 0) })
	b.Run("redis-leased", func(b *testing.B) { admit(b, up, false, 0, fleet.WithLease(leaseRequests, 0)) })
	b.Run("redis-paced", func(b *testing.B) { admit(b, up, false, pace) })
	b.Run("redis-leased-paced", func(b *testing.B) { admit(b, up, false, pace, fleet.WithLease(leaseRequests, 0)) })
	b.Run("redis-down", func(b *testing.B) { admit(b, stopped, false, 0) })
	b.Run("redis-down-tuned", func(b *testing.B) { admit(b, stopped, true, 0) })
	b.Run("redis-hung", func(b *testing.B) { admit(b, hung, false, 0) })
	b.Run("redis-hung-ctx", func(b *testing.B) { admit(b, hungCtx, false, 0) })
	b.Run("ping", func(b *testing.B) {
		srv := startRedis(b)
		var rt roundTrips
		rdb := benchClient(b, srv, &rt)
		for b.Loop() {
			if err := rdb.Ping(context.Background()).Err(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

package fleet_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/fleet"
)

// empty is a script that does nothing: what any EVALSHA costs.
var empty = redis.NewScript(`return 0`)

// BenchmarkRoundTrip splits what an exact admission costs, side by side
// on one loopback Redis, through go-redis with its defaults: a bare PING
// ("ping"), an EVALSHA of an empty script ("evalsha-empty"), the
// reservation script on a limiter's two buckets alone
// ("evalsha-reserve-alone") and paired with a breaker's state, as a
// Limiter made WithBreaker sends it ("evalsha-reserve"), and a whole
// admission through the package ("admission": Allow, Reserve, done;
// "admission-no-outcome" without done, so without the outcome batches
// recorded in the background).
// The admission runs again on clients made with other options:
// "admission-ctx" with ContextTimeoutEnabled and no retries (the
// package's timeout then bounds reads and writes too), "admission-nodeadline"
// with ReadTimeout and WriteTimeout -2 (no deadline set per command: an
// unbounded wait, measured only for what deadlines cost) and
// "admission-resp2" with Protocol 2. p50-µs and p99-µs are the median
// and 99th percentile of the calls.
func BenchmarkRoundTrip(b *testing.B) {
	srv := startRedis(b)
	client := func(b *testing.B, o redis.Options) *redis.Client {
		o.Addr, o.DisableIdentity = srv.addr, true
		rdb := redis.NewClient(&o)
		b.Cleanup(func() { rdb.Close() })
		return rdb
	}
	// loop runs f b.N times and reports the median and p99.
	loop := func(b *testing.B, f func() error) {
		took := make([]time.Duration, 0, b.N)
		for b.Loop() {
			t0 := time.Now()
			if err := f(); err != nil {
				b.Fatal(err)
			}
			took = append(took, time.Since(t0))
		}
		slices.Sort(took)
		b.ReportMetric(float64(took[len(took)/2].Nanoseconds())/1e3, "p50-µs")
		b.ReportMetric(float64(took[len(took)*99/100].Nanoseconds())/1e3, "p99-µs")
	}
	ctx := context.Background()
	b.Run("ping", func(b *testing.B) {
		rdb := client(b, redis.Options{})
		loop(b, func() error { return rdb.Ping(ctx).Err() })
	})
	b.Run("evalsha-empty", func(b *testing.B) {
		rdb := client(b, redis.Options{})
		loop(b, func() error { return empty.Run(ctx, rdb, []string{"e"}).Err() })
	})
	// The arguments of a Limiter of RPS and TPM 1e9 reserving 100 tokens,
	// without a lease; and WithBreaker, the breaker's interval and timeout.
	alone := []any{2, "rps", "0.001", "1000000000", 1, 0, "tpm", "0.06", "1000000000", 100, 0}
	paired := append(slices.Clone(alone), 60000000, 60000000)
	b.Run("evalsha-reserve-alone", func(b *testing.B) {
		rdb := client(b, redis.Options{})
		loop(b, func() error {
			return fleet.ReserveScript.Run(ctx, rdb, []string{"tokenpace:limit:{a}"}, alone...).Err()
		})
	})
	b.Run("evalsha-reserve", func(b *testing.B) {
		rdb := client(b, redis.Options{})
		loop(b, func() error {
			return fleet.ReserveScript.Run(ctx, rdb, []string{"tokenpace:breaker:{a}"}, paired...).Err()
		})
	})
	admission := func(o redis.Options, outcome bool) func(b *testing.B) {
		return func(b *testing.B) {
			rdb := client(b, o)
			br, err := fleet.NewBreaker(rdb, "a", tokenpace.BreakerSettings{})
			if err != nil {
				b.Fatal(err)
			}
			l, err := fleet.NewLimiter(rdb, "a", tokenpace.Limit{RPS: 1e9, TPM: 1e9}, fleet.WithBreaker(br))
			if err != nil {
				b.Fatal(err)
			}
			loop(b, func() error {
				done, err := br.Allow()
				if err != nil {
					return err
				}
				if _, _, err := l.Reserve(time.Now(), 100); err != nil {
					return err
				}
				if outcome {
					done(nil)
				}
				return nil
			})
			br.Close()
			l.Close()
		}
	}
	b.Run("admission", admission(redis.Options{}, true))
	b.Run("admission-no-outcome", admission(redis.Options{}, false))
	b.Run("admission-ctx", admission(redis.Options{ContextTimeoutEnabled: true, MaxRetries: -1}, true))
	b.Run("admission-nodeadline", admission(redis.Options{ReadTimeout: -2, WriteTimeout: -2}, true))
	b.Run("admission-resp2", admission(redis.Options{Protocol: 2}, true))
}

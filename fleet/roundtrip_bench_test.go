package fleet_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/fleet"
)

// empty is a script that does nothing: what any EVALSHA costs.
var empty = redis.NewScript(`return 0`)

// BenchmarkRoundTrip splits what an admission costs, side by side on one
// loopback Redis: a bare PING through go-redis ("ping"), an EVALSHA of an
// empty script ("evalsha-empty"), the reservation script alone, on a
// limiter's two buckets and a breaker's state, as a Limiter made
// WithBreaker sends it ("evalsha-reserve"), and a whole admission through
// the package ("admission": Allow, Reserve, done), each with go-redis's
// defaults (RESP3) and with "resp2".
func BenchmarkRoundTrip(b *testing.B) {
	srv := startRedis(b)
	for _, proto := range []struct {
		name string
		n    int
	}{{"", 3}, {"resp2/", 2}} {
		client := func(b *testing.B) *redis.Client {
			rdb := redis.NewClient(&redis.Options{Addr: srv.addr, Protocol: proto.n, DisableIdentity: true})
			b.Cleanup(func() { rdb.Close() })
			return rdb
		}
		b.Run(proto.name+"ping", func(b *testing.B) {
			rdb := client(b)
			for b.Loop() {
				if err := rdb.Ping(context.Background()).Err(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(proto.name+"evalsha-empty", func(b *testing.B) {
			rdb := client(b)
			for b.Loop() {
				if err := empty.Run(context.Background(), rdb, []string{"e"}).Err(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(proto.name+"evalsha-reserve", func(b *testing.B) {
			rdb := client(b)
			// The arguments of a Limiter of RPS and TPM 1e9 WithBreaker,
			// reserving 100 tokens, without a lease.
			args := []any{2, "rps", "0.001", "1000000000", 1, 0, "tpm", "0.06", "1000000000", 100, 0, 60000000, 60000000}
			for b.Loop() {
				if err := fleet.ReserveScript.Run(context.Background(), rdb, []string{"tokenpace:breaker:{a}"}, args...).Err(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(proto.name+"admission", func(b *testing.B) {
			rdb := client(b)
			br, err := fleet.NewBreaker(rdb, "a", tokenpace.BreakerSettings{})
			if err != nil {
				b.Fatal(err)
			}
			l, err := fleet.NewLimiter(rdb, "a", tokenpace.Limit{RPS: 1e9, TPM: 1e9}, fleet.WithBreaker(br))
			if err != nil {
				b.Fatal(err)
			}
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
		})
	}
}

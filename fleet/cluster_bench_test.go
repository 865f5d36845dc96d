package fleet_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/fleet"
)

// warm makes a client's first commands: one Ping through it, which
// loads a ClusterClient's slot map and command table, and one to each
// master, which opens a connection to each.
func warm(rdb redis.UniversalClient) {
	ctx := context.Background()
	rdb.Ping(ctx)
	if cc, ok := rdb.(*redis.ClusterClient); ok {
		cc.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error { return c.Ping(ctx).Err() })
	}
}

// BenchmarkClusterFirstReservation times the first reservation of a
// process on a three-master Redis Cluster, each with a new ClusterClient
// (ContextTimeoutEnabled, no retries) and the default timeout: as it
// comes ("cold": the client loads the slot map and the command table in
// that reservation's 10 ms), or after warm ("warmed"). errors/op
// counts the reservations the timeout sent to the local limiter, each
// also reported and followed by WithRedisBackoff of local decisions; a
// standalone Redis ("standalone-cold") is the baseline.
func BenchmarkClusterFirstReservation(b *testing.B) {
	c := startCluster(b)
	one := startRedis(b)
	for _, bc := range []struct {
		name string
		ping bool
		new  func() redis.UniversalClient
	}{
		{"standalone-cold", false, func() redis.UniversalClient {
			return redis.NewClient(&redis.Options{Addr: one.addr, MaxRetries: -1, ContextTimeoutEnabled: true})
		}},
		{"cold", false, func() redis.UniversalClient {
			return redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.addrs, MaxRetries: -1, ContextTimeoutEnabled: true})
		}},
		{"warmed", true, func() redis.UniversalClient {
			return redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.addrs, MaxRetries: -1, ContextTimeoutEnabled: true})
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var log errorLog
			for b.Loop() {
				b.StopTimer()
				rdb := bc.new()
				if bc.ping {
					warm(rdb)
				}
				l, err := fleet.NewLimiter(rdb, "a", tokenpace.Limit{RPS: 1e9}, log.option())
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				l.Reserve(time.Now(), 1)
				b.StopTimer()
				l.Close()
				rdb.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(log.len())/float64(b.N), "errors/op")
		})
	}
}

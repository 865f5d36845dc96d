package fleet_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/sony/gobreaker/v2"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/fleet"
)

// forget is a way Redis forgets the scripts it was given (SCRIPT FLUSH,
// a restart) while the fleet's state stays.
type forget func(t *testing.T, srv *redisServer, rdb *redis.Client)

// checkScriptsForgotten runs a Breaker (three failures trip it) and a
// Limiter WithBreaker (a burst of three requests) across forget: the
// next calls answer NOSCRIPT, run the scripts again from their source,
// and count each request and failure once, as the caller sees: the
// third failure trips the breaker, the fourth request waits; nothing is
// reported.
func checkScriptsForgotten(t *testing.T, srv *redisServer, f forget) {
	t.Helper()
	var log errorLog
	rdb := srv.client(t)
	b, l := sharedPair(t, rdb, tokenpace.BreakerSettings{Failures: 3},
		[]fleet.Option{fleet.WithStateMaxAge(-1), fleet.WithRedisBackoff(time.Nanosecond), log.option()},
		"a", tokenpace.Limit{RPS: 1e-3, Burst: 3}, log.option())
	admit := func(what string) {
		t.Helper()
		if err := call(b, errBoom); err != nil {
			t.Fatalf("%s: Allow() = %v, want nil", what, err)
		}
		b.Flush()
		if d, _ := reserve(t, l, 1); d != 0 {
			t.Fatalf("%s: Reserve() wait = %v, want 0 (within the burst)", what, d)
		}
	}
	admit("1st")
	admit("2nd")
	f(t, srv, rdb)
	if n := rdb.ScriptExists(context.Background(), fleet.ReserveScript.Hash()).Val(); len(n) != 1 || n[0] {
		t.Fatalf("SCRIPT EXISTS reserve after Redis forgot it = %v, want [false]", n)
	}
	admit("3rd, the scripts forgotten")
	if err := call(b, nil); !errors.Is(err, gobreaker.ErrOpenState) {
		t.Fatalf("Allow() after 3 failures = %v, want ErrOpenState", err)
	}
	if d, _, err := l.Reserve(time.Now(), 1); err != nil || d <= 0 {
		t.Fatalf("4th Reserve() of a burst of 3 = %v, %v; want a wait, nil", d, err)
	}
	if c := b.Counts(); c.TotalFailures != 0 || b.State() != gobreaker.StateOpen {
		t.Fatalf("State(), Counts() = %v, %+v; want open, a new generation's zero counts", b.State(), c)
	}
	if log.len() != 0 {
		t.Fatalf("errors reported = %v, want none", log.errs)
	}
}

func TestScriptFlush(t *testing.T) {
	checkScriptsForgotten(t, startRedis(t), func(t *testing.T, _ *redisServer, rdb *redis.Client) {
		if err := rdb.ScriptFlush(context.Background()).Err(); err != nil {
			t.Fatalf("SCRIPT FLUSH: %v", err)
		}
	})
}

// A restart of a Redis that persists its data (an append-only file
// written at every command) keeps the fleet's state and forgets its
// scripts.
func TestRedisRestartKeepsState(t *testing.T) {
	srv := startRedisWith(t, "--appendonly", "yes", "--appendfsync", "always")
	checkScriptsForgotten(t, srv, func(t *testing.T, srv *redisServer, _ *redis.Client) { srv.restart() })
}

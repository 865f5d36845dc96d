package fleet_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/sony/gobreaker/v2"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/fleet"
)

// refused is a Breaker (one failure trips it) and a Limiter WithBreaker
// (a burst of one request) on a Redis that refuses them, with the
// errors they report.
type refused struct {
	b   *fleet.Breaker
	l   *fleet.Limiter
	log errorLog
}

func newRefused(t *testing.T, rdb redis.UniversalClient) *refused {
	t.Helper()
	r := &refused{}
	// An hour's back-off: once refused, Redis is not asked again.
	opts := []fleet.Option{slack, fleet.WithStateMaxAge(-1), fleet.WithRedisBackoff(time.Hour), r.log.option()}
	var err error
	if r.b, err = fleet.NewBreaker(rdb, "a", tokenpace.BreakerSettings{Failures: 1}, opts...); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.b.Close() })
	if r.l, err = fleet.NewLimiter(rdb, "a", tokenpace.Limit{RPS: 1e-3, Burst: 1}, append(opts, fleet.WithBreaker(r.b))...); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.l.Close() })
	return r
}

// check asserts what the caller sees of a Redis that refuses the fleet:
// the limit and the breaker hold, decided locally (the first request
// goes, the second waits; a failure opens the breaker), and the error
// handler hears Redis's refusal, wrapped, with words that say what to
// change (advice).
func (r *refused) check(t *testing.T, prefix, advice string) {
	t.Helper()
	if d, _, err := r.l.Reserve(time.Now(), 1); err != nil || d != 0 {
		t.Fatalf("Reserve() = %v, %v; want 0, nil (the local limiter's burst)", d, err)
	}
	if d, _, err := r.l.Reserve(time.Now(), 1); err != nil || d <= 0 {
		t.Fatalf("2nd Reserve() = %v, %v; want a wait, nil (the local limiter's burst is spent)", d, err)
	}
	if err := call(r.b, errBoom); err != nil {
		t.Fatalf("Allow() = %v, want nil", err)
	}
	r.b.Flush()
	if err := call(r.b, nil); !errors.Is(err, gobreaker.ErrOpenState) {
		t.Fatalf("Allow() after a failure = %v, want ErrOpenState (the local breaker)", err)
	}
	if r.log.len() == 0 {
		t.Fatal("no error reported")
	}
	for _, err := range r.log.errs {
		var reply redis.Error
		if !errors.As(err, &reply) || !strings.HasPrefix(reply.Error(), prefix) {
			t.Errorf("reported %q, want Redis's %s reply wrapped", err, prefix)
		}
		if !strings.Contains(err.Error(), advice) {
			t.Errorf("reported %q, want it to say %q", err, advice)
		}
	}
}

// checkStoreRefused asserts that the writes of s return Redis's refusal
// with advice.
func checkStoreRefused(t *testing.T, s *fleet.Store, advice string) {
	t.Helper()
	for op, err := range map[string]error{"Lock": s.Lock("l"), "SetData": s.SetData("d", nil)} {
		if err == nil || !strings.Contains(err.Error(), advice) {
			t.Errorf("Store.%s = %v, want an error that says %q", op, err, advice)
		}
	}
}

// The permissions the package documentation lists are enough: with a
// user limited to them and to the prefix's keys, nothing is refused.
func TestACLDocumentedPermissions(t *testing.T) {
	srv := startRedis(t)
	setUser(t, srv, "fleet", "pw", fleetRules...)
	rdb := redis.NewClient(&redis.Options{Addr: srv.addr, Username: "fleet", Password: "pw", MaxRetries: -1})
	t.Cleanup(func() { rdb.Close() })
	var log errorLog
	b, err := fleet.NewBreaker(rdb, "a", tokenpace.BreakerSettings{Failures: 2}, slack, fleet.WithStateMaxAge(-1), log.option())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	own, err := fleet.NewLimiter(rdb, "b", tokenpace.Limit{RPS: 1e-3, Burst: 2}, slack, fleet.WithLease(1, time.Hour), log.option())
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := call(b, errBoom); err != nil {
			t.Fatalf("Allow() = %v, want nil", err)
		}
		b.Flush()
	}
	if err := call(b, nil); !errors.Is(err, gobreaker.ErrOpenState) {
		t.Fatalf("Allow() after 2 failures = %v, want ErrOpenState", err)
	}
	// A request and a lease of one take the burst; a cancel and Close
	// give them back (the refund script).
	_, cancel := reserve(t, own, 1)
	cancel(time.Now())
	own.Close()
	checkStore(t, fleet.NewStore(rdb, slack))
	if log.len() != 0 {
		t.Fatalf("errors reported with the documented permissions = %v, want none", log.errs)
	}
}

// A user that may run scripts but not the commands they call: the fleet
// decides locally and the handler hears that a permission is missing.
func TestACLMissingPermission(t *testing.T) {
	srv := startRedis(t)
	setUser(t, srv, "fleet", "pw", "~tokenpace:*", "+@scripting")
	rdb := redis.NewClient(&redis.Options{Addr: srv.addr, Username: "fleet", Password: "pw", MaxRetries: -1})
	t.Cleanup(func() { rdb.Close() })
	const advice = "lacks a permission the fleet needs"
	// Redis 7.0 words it "ERR The user executing the script can't run this
	// command", 7.2 and later "ERR ACL failure in script": the advice says
	// the fleet read either as a missing permission.
	newRefused(t, rdb).check(t, "ERR ", advice)
	checkStoreRefused(t, fleet.NewStore(rdb, slack), advice)
}

// A client pointed at a read-only replica: every write is refused; the
// fleet decides locally and says so.
func TestReadOnlyReplica(t *testing.T) {
	primary := startRedisWith(t, "--repl-diskless-sync-delay", "0")
	replica := startRedisWith(t, "--replicaof", "127.0.0.1", strconv.Itoa(primary.port))
	replica.awaitLog("MASTER <-> REPLICA sync: Finished with success")
	rdb := replica.client(t)
	const advice = "read-only replica"
	newRefused(t, rdb).check(t, "READONLY ", advice)
	checkStoreRefused(t, fleet.NewStore(rdb, slack), advice)
}

// A Redis whose memory is full and that evicts nothing refuses writes:
// the fleet decides locally and says so. The state exists before
// (reading it needs no memory).
func TestMaxMemoryFull(t *testing.T) {
	srv := startRedisWith(t, "--maxmemory-policy", "noeviction")
	rdb := srv.client(t)
	r := newRefused(t, rdb)
	r.b.State() // creates the shared state
	if err := rdb.ConfigSet(context.Background(), "maxmemory", "1").Err(); err != nil {
		t.Fatalf("CONFIG SET maxmemory: %v", err)
	}
	const advice = "out of memory"
	r.check(t, "OOM ", advice)
	checkStoreRefused(t, fleet.NewStore(rdb, slack), advice)
}

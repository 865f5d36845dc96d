package fleet_test

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/sony/gobreaker/v2"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/fleet"
)

// cluster is a Redis Cluster of three masters, no replicas, started by
// one test.
type cluster struct {
	nodes []*redisServer
	addrs []string
}

// startCluster starts three redis-server in cluster mode and joins them
// with redis-cli --cluster create, which spreads the 16384 slots over
// them; it returns once every node says the cluster is ok. It skips the
// test as startRedis does, and when redis-cli is missing.
func startCluster(t testing.TB) *cluster {
	t.Helper()
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		t.Skipf("redis-cli not installed (apt-get install redis-tools): %v", err)
	}
	var c cluster
	for range 3 {
		s := startRedisWith(t, "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf")
		c.nodes = append(c.nodes, s)
		c.addrs = append(c.addrs, s.addr)
	}
	args := append(append([]string{"--cluster", "create"}, c.addrs...), "--cluster-replicas", "0", "--cluster-yes")
	if out, err := exec.Command(cli, args...).CombinedOutput(); err != nil {
		t.Fatalf("redis-cli %v: %v\n%s", args, err, out)
	}
	for _, n := range c.nodes {
		n.awaitLog("Cluster state changed: ok")
	}
	return &c
}

// client returns a cluster client, as one replica of the service would
// have, closed when the test ends; user and password are the ACL user's
// ("" for the default user).
func (c *cluster) client(t *testing.T, user, password string) *redis.ClusterClient {
	t.Helper()
	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.addrs, Username: user, Password: password, MaxRetries: -1})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

// owner returns the node that serves key's slot, and the slot.
func (c *cluster) owner(t *testing.T, key string) (*redisServer, int) {
	t.Helper()
	ctx := context.Background()
	admin := c.nodes[0].client(t)
	slot := int(admin.ClusterKeySlot(ctx, key).Val())
	shards, err := admin.ClusterShards(ctx).Result()
	if err != nil {
		t.Fatalf("CLUSTER SHARDS: %v", err)
	}
	for _, sh := range shards {
		for _, r := range sh.Slots {
			if int(r.Start) > slot || slot > int(r.End) {
				continue
			}
			for _, n := range c.nodes {
				for _, sn := range sh.Nodes {
					if sn.Role == "master" && int(sn.Port) == n.port {
						return n, slot
					}
				}
			}
		}
	}
	t.Fatalf("no node serves slot %d of %q", slot, key)
	return nil, 0
}

// setUser sets the ACL user name, with password pw and rules, on every
// node (ACLs are per node, not shared by the cluster).
func (c *cluster) setUser(t *testing.T, name, pw string, rules ...string) {
	t.Helper()
	for _, n := range c.nodes {
		setUser(t, n, name, pw, rules...)
	}
}

// fleetRules are the ACL rules the package documentation gives for the
// fleet's default prefix: its commands, on its keys, nothing else. A
// ClusterClient needs CLUSTER SLOTS and COMMAND besides.
var fleetRules = []string{"resetkeys", "~tokenpace:*", "resetchannels", "-@all",
	"+evalsha", "+eval", "+time", "+hmget", "+hset", "+pexpireat", "+pttl", "+get", "+set", "+del"}

// clusterRules are what a ClusterClient needs besides fleetRules.
var clusterRules = []string{"+cluster|slots", "+command"}

// Two replicas on a Redis Cluster, each with its ClusterClient and a user
// limited to the documented permissions: the breaker trips for both, the
// limit counts both, a Limiter WithBreaker of another name shares the
// breaker's key, a leased Limiter and a Store work, and Redis refuses
// nothing (no CROSSSLOT: every script reads and writes one key).
func TestClusterFleet(t *testing.T) {
	c := startCluster(t)
	c.setUser(t, "fleet", "pw", append(fleetRules, clusterRules...)...)
	var log errorLog
	type replica struct {
		b      *fleet.Breaker
		l, own *fleet.Limiter
	}
	var rs []replica
	for range 2 {
		rdb := c.client(t, "fleet", "pw")
		// The limiter has another name than the breaker's: the
		// reservations use the breaker's key all the same.
		b, l := sharedPair(t, rdb, tokenpace.BreakerSettings{Failures: 2}, []fleet.Option{fleet.WithStateMaxAge(-1), log.option()},
			"b", tokenpace.Limit{RPS: 1e-3, Burst: 3}, log.option())
		own, err := fleet.NewLimiter(rdb, "c", tokenpace.Limit{RPS: 1e-3, Burst: 4}, slack, fleet.WithLease(1, time.Hour), log.option())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { own.Close() })
		rs = append(rs, replica{b, l, own})
	}
	for i, want := range []time.Duration{0, 0, 0} {
		if d, _ := reserve(t, rs[i%2].l, 10); (d == 0) != (want == 0) {
			t.Fatalf("reservation %d of a burst of 3 shared by two replicas: wait %v, want %v", i, d, want)
		}
	}
	if d, _ := reserve(t, rs[1].l, 10); d <= 0 {
		t.Fatalf("4th reservation of a burst of 3 shared by two replicas: wait %v, want > 0", d)
	}
	// Each replica's first reservation takes a request and a lease of
	// one of the burst of 4; its second comes from its lease.
	for i := range 4 {
		if d, _ := reserve(t, rs[i%2].own, 1); d != 0 {
			t.Fatalf("leased reservation %d of a burst of 4 shared by two replicas: wait %v, want 0", i, d)
		}
	}
	for _, r := range rs {
		if err := call(r.b, errBoom); err != nil {
			t.Fatalf("Allow() before the breaker trips = %v, want nil", err)
		}
		r.b.Flush()
	}
	for i, r := range rs {
		if err := call(r.b, nil); !errors.Is(err, gobreaker.ErrOpenState) {
			t.Fatalf("replica %d: Allow() after one failure in each of two replicas = %v, want ErrOpenState", i, err)
		}
	}
	checkStore(t, fleet.NewStore(c.client(t, "fleet", "pw"), slack))
	if log.len() != 0 {
		t.Fatalf("errors reported on a cluster = %v, want none", log.errs)
	}
}

// checkStore takes, uses and releases a lock of s.
func checkStore(t *testing.T, s *fleet.Store) {
	t.Helper()
	if err := s.Lock("l"); err != nil {
		t.Fatalf("Store.Lock = %v, want nil", err)
	}
	if err := s.Lock("l"); !errors.Is(err, fleet.ErrLocked) {
		t.Fatalf("Store.Lock of a lock held = %v, want ErrLocked", err)
	}
	if err := s.SetData("d", []byte("x")); err != nil {
		t.Fatalf("Store.SetData = %v, want nil", err)
	}
	if b, err := s.GetData("d"); err != nil || string(b) != "x" {
		t.Fatalf("Store.GetData = %q, %v, want \"x\", nil", b, err)
	}
	if err := s.Unlock("l"); err != nil {
		t.Fatalf("Store.Unlock = %v, want nil", err)
	}
}

// A slot that moves from one master to another while the fleet runs: the
// client follows ASK while the breaker's key is on the importing node
// (loading the scripts there) and MOVED once the slot is its, and every
// decision goes on from the counts the fleet made before the move.
func TestClusterSlotMigration(t *testing.T) {
	c := startCluster(t)
	var log errorLog
	var seen redirects
	rdb := c.client(t, "", "")
	rdb.OnNewNode(func(n *redis.Client) { n.AddHook(&seen) })
	b, l := sharedPair(t, rdb, tokenpace.BreakerSettings{Failures: 3}, []fleet.Option{fleet.WithStateMaxAge(-1), log.option()},
		"a", tokenpace.Limit{RPS: 1e-3, Burst: 3}, log.option())
	// another replica, whose client learnt the slots before the move
	other, err := fleet.NewBreaker(c.client(t, "", ""), "a", tokenpace.BreakerSettings{Failures: 3}, slack, log.option())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	if got := other.State(); got != gobreaker.StateClosed {
		t.Fatalf("other replica: State() before the move = %v, want closed", got)
	}

	key := fleet.DefaultPrefix + "breaker:{a}"
	ctx := context.Background()
	step := func(what string) {
		t.Helper()
		if err := call(b, errBoom); err != nil {
			t.Fatalf("%s: Allow() = %v, want nil", what, err)
		}
		b.Flush()
		if d, _ := reserve(t, l, 1); d != 0 {
			t.Fatalf("%s: Reserve() wait = %v, want 0 (within the burst)", what, d)
		}
	}
	step("before the move")
	dstc, finish := c.migrate(t, key)
	step("key moved, slot migrating (ASK)")
	if seen.ask.Load() == 0 {
		t.Fatal("no ASKING sent while the key was on the importing node")
	}
	finish()
	step("slot moved (MOVED)")
	if seen.moved.Load() == 0 {
		t.Fatal("no MOVED answered once the slot moved")
	}
	// Three failures trip the breaker; the burst of 3 is spent: the
	// counts made on either node are one.
	if err := call(b, nil); !errors.Is(err, gobreaker.ErrOpenState) {
		t.Fatalf("after 3 failures, one per step: Allow() = %v, want ErrOpenState", err)
	}
	if d, _, err := l.Reserve(time.Now(), 1); err != nil || d <= 0 {
		t.Fatalf("4th reservation of a burst of 3: wait %v, error %v; want > 0, nil", d, err)
	}
	if got := other.State(); got != gobreaker.StateOpen {
		t.Fatalf("other replica, its slots learnt before the move: State() = %v, want open", got)
	}
	if n := dstc.Exists(ctx, key).Val(); n != 1 {
		t.Fatalf("key %s on the node the slot moved to: EXISTS = %d, want 1", key, n)
	}
	if log.len() != 0 {
		t.Fatalf("errors reported during a slot migration = %v, want none", log.errs)
	}
}

// migrate moves key's slot from its master to another: it marks the
// slot migrating and moves the key, so that the old master answers ASK,
// and returns a client of the new master and finish, which gives it the
// slot on every node, so that the old one answers MOVED.
func (c *cluster) migrate(t *testing.T, key string) (dst *redis.Client, finish func()) {
	t.Helper()
	ctx := context.Background()
	src, slot := c.owner(t, key)
	var to *redisServer
	for _, n := range c.nodes {
		if n != src && to == nil {
			to = n
		}
	}
	srcc, dstc := src.client(t), to.client(t)
	srcID, dstID := srcc.ClusterMyID(ctx).Val(), dstc.ClusterMyID(ctx).Val()
	do := func(rdb *redis.Client, args ...any) {
		t.Helper()
		if err := rdb.Do(ctx, args...).Err(); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
	}
	do(dstc, "CLUSTER", "SETSLOT", slot, "IMPORTING", srcID)
	do(srcc, "CLUSTER", "SETSLOT", slot, "MIGRATING", dstID)
	do(srcc, "MIGRATE", "127.0.0.1", to.port, "", 0, 5000, "KEYS", key)
	return dstc, func() {
		t.Helper()
		for _, n := range c.nodes {
			do(n.client(t), "CLUSTER", "SETSLOT", slot, "NODE", dstID)
		}
	}
}

// redirects counts the ASKING commands a cluster's node clients send and
// the MOVED errors they receive.
type redirects struct{ ask, moved atomic.Int64 }

func (r *redirects) DialHook(next redis.DialHook) redis.DialHook { return next }

func (r *redirects) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if err != nil && strings.HasPrefix(err.Error(), "MOVED ") {
			r.moved.Add(1)
		}
		return err
	}
}

func (r *redirects) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if len(cmds) > 0 && cmds[0].Name() == "asking" {
			r.ask.Add(1)
		}
		return next(ctx, cmds)
	}
}

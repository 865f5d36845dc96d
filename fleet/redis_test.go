package fleet_test

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"

	"github.com/tokenpace/tokenpace/fleet"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// redisServer is a redis-server process of one test.
type redisServer struct {
	t    testing.TB
	bin  string
	dir  string
	port int
	cmd  *exec.Cmd
	addr string
	args []string      // given to redis-server after the defaults
	log  *logWriter    // the log of the process started last
	done chan struct{} // closed when the process has ended
}

// startRedis starts redis-server on a free loopback port, without
// persistence, in a temporary directory, and stops it when the test ends.
// It skips the test when redis-server is not installed, unless CI is set.
func startRedis(t testing.TB) *redisServer {
	t.Helper()
	return startRedisWith(t)
}

// startRedisWith is startRedis giving redis-server args after the
// defaults (a later setting of a directive overrides an earlier one).
func startRedisWith(t testing.TB, args ...string) *redisServer {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("redis-server not found and CI is set: %v", err)
		}
		t.Skipf("redis-server not installed (apt-get install redis-server): %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("net.Listen: %v", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	s := &redisServer{t: t, bin: bin, dir: t.TempDir(), port: port, addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), args: args}
	s.start()
	t.Cleanup(s.stop)
	return s
}

// start starts the server and waits until it accepts connections.
func (s *redisServer) start() {
	s.t.Helper()
	log := &logWriter{}
	ready := log.await("Ready to accept connections")
	args := append([]string{"--port", strconv.Itoa(s.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", s.dir}, s.args...)
	cmd := exec.Command(s.bin, args...)
	cmd.Stdout = log
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("start redis-server: %v", err)
	}
	done := make(chan struct{})
	s.cmd, s.done, s.log = cmd, done, log
	go func() {
		cmd.Wait()
		close(done)
	}()
	select {
	case <-ready:
	case <-done:
		s.t.Fatalf("redis-server on %s ended before it was ready:\n%s", s.addr, log.text())
	}
}

// restart starts a stopped server again, on the same address, empty.
func (s *redisServer) restart() {
	s.t.Helper()
	s.stop()
	s.start()
}

// logWriter keeps redis-server's log and tells waiters when a line
// they await appears in it.
type logWriter struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	waiters []logWaiter
}

// logWaiter is a text awaited in the log and the channel closed when it
// appears.
type logWaiter struct {
	text string
	seen chan struct{}
}

// await returns a channel closed once text is in the log (already, or
// later).
func (w *logWriter) await(text string) <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	seen := make(chan struct{})
	if bytes.Contains(w.buf.Bytes(), []byte(text)) {
		close(seen)
		return seen
	}
	w.waiters = append(w.waiters, logWaiter{text: text, seen: seen})
	return seen
}

func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	waiting := w.waiters[:0]
	for _, x := range w.waiters {
		if bytes.Contains(w.buf.Bytes(), []byte(x.text)) {
			close(x.seen)
		} else {
			waiting = append(waiting, x)
		}
	}
	w.waiters = waiting
	return len(p), nil
}

func (w *logWriter) text() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// stop kills the server and waits for it to end; it may be called twice.
func (s *redisServer) stop() {
	s.cmd.Process.Kill()
	<-s.done
}

// client returns a client of s, closed when the test ends. Its commands
// are counted by the hooks given.
func (s *redisServer) client(t testing.TB, hooks ...redis.Hook) *redis.Client {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: s.addr, MaxRetries: -1, DialerRetries: 1})
	for _, h := range hooks {
		rdb.AddHook(h)
	}
	t.Cleanup(func() { rdb.Close() })
	if err := rdb.Ping(context.Background()).Err(); err != nil {
		t.Fatalf("PING %s: %v", s.addr, err)
	}
	return rdb
}

// roundTrips counts the commands a client sends to Redis (a script's
// EVALSHA is one; a retry inside the client is not another; a new
// connection's handshake is not counted) and the connections it dials.
type roundTrips struct {
	cmds, dials atomic.Int64
	// reserves counts the reservations run on a limit's buckets (not
	// the refunds and charges that follow them).
	reserves atomic.Int64
}

func (h *roundTrips) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		h.dials.Add(1)
		return next(ctx, network, addr)
	}
}

// isReserve reports whether args run the reservation script, by its
// hash (EVALSHA) or its source (EVAL).
func isReserve(args []any) bool {
	if len(args) < 2 {
		return false
	}
	hash := fleet.ReserveScript.Hash()
	switch a := args[1].(type) {
	case string:
		sum := sha1.Sum([]byte(a))
		return a == hash || hex.EncodeToString(sum[:]) == hash
	}
	return false
}

// handshake reports whether a command is part of a new connection's
// handshake: HELLO, then a pipeline of CLIENT SETINFO (go-redis's
// initConn), and AUTH or SELECT where options ask for them. How many
// connections the pool opens depends on how calls and batches overlap,
// which a loaded machine changes: the dials are counted apart.
func handshake(cmd redis.Cmder) bool {
	switch cmd.Name() {
	case "hello", "client", "auth", "select", "readonly":
		return true
	}
	return false
}

func (h *roundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if !handshake(cmd) {
			h.cmds.Add(1)
			if isReserve(cmd.Args()) {
				h.reserves.Add(1)
			}
		}
		return next(ctx, cmd)
	}
}

func (h *roundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if !slices.ContainsFunc(cmds, func(c redis.Cmder) bool { return !handshake(c) }) {
			return next(ctx, cmds) // a new connection's handshake
		}
		h.cmds.Add(1)
		return next(ctx, cmds)
	}
}

// awaitLog waits until text appears in the server's log, failing the test
// if the server ends first or the text does not appear within a minute
// (a bound for a broken setup, not a measure).
func (s *redisServer) awaitLog(text string) {
	s.t.Helper()
	select {
	case <-s.log.await(text):
	case <-s.done:
		s.t.Fatalf("redis-server on %s ended before logging %q:\n%s", s.addr, text, s.log.text())
	case <-time.After(time.Minute):
		s.t.Fatalf("redis-server on %s did not log %q within a minute:\n%s", s.addr, text, s.log.text())
	}
}

// setUser sets the ACL user name on s, with password pw and rules.
func setUser(t testing.TB, s *redisServer, name, pw string, rules ...string) {
	t.Helper()
	args := []any{"ACL", "SETUSER", name, "reset", "on", ">" + pw}
	for _, r := range rules {
		args = append(args, r)
	}
	if err := s.client(t).Do(context.Background(), args...).Err(); err != nil {
		t.Fatalf("ACL SETUSER %s %v: %v", name, rules, err)
	}
}

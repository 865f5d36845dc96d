package fleet_test

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

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
	done chan struct{} // closed when the process has ended
}

// startRedis starts redis-server on a free loopback port, without
// persistence, in a temporary directory, and stops it when the test ends.
// It skips the test when redis-server is not installed, unless CI is set.
func startRedis(t testing.TB) *redisServer {
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
	s := &redisServer{t: t, bin: bin, dir: t.TempDir(), port: port, addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port))}
	s.start()
	t.Cleanup(s.stop)
	return s
}

// start starts the server and waits until it accepts connections.
func (s *redisServer) start() {
	s.t.Helper()
	log := &readyWriter{ready: make(chan struct{})}
	cmd := exec.Command(s.bin, "--port", strconv.Itoa(s.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", s.dir)
	cmd.Stdout = log
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("start redis-server: %v", err)
	}
	done := make(chan struct{})
	s.cmd, s.done = cmd, done
	go func() {
		cmd.Wait()
		close(done)
	}()
	select {
	case <-log.ready:
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

// readyWriter keeps redis-server's log and closes ready at the line that
// says it accepts connections.
type readyWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	ready chan struct{}
	seen  bool
}

func (w *readyWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if !w.seen && bytes.Contains(w.buf.Bytes(), []byte("Ready to accept connections")) {
		w.seen = true
		close(w.ready)
	}
	return len(p), nil
}

func (w *readyWriter) text() string {
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

func (h *roundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		switch cmd.Name() {
		case "hello", "client": // a new connection's handshake
		default:
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
		h.cmds.Add(1)
		return next(ctx, cmds)
	}
}

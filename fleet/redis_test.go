package fleet_test

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// redisServer is a redis-server process of one test.
type redisServer struct {
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
	log := &readyWriter{ready: make(chan struct{})}
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", t.TempDir())
	cmd.Stdout = log
	if err := cmd.Start(); err != nil {
		t.Fatalf("start redis-server: %v", err)
	}
	s := &redisServer{cmd: cmd, addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), done: make(chan struct{})}
	go func() {
		cmd.Wait()
		close(s.done)
	}()
	t.Cleanup(s.stop)
	select {
	case <-log.ready:
	case <-s.done:
		t.Fatalf("redis-server on %s ended before it was ready:\n%s", s.addr, log.text())
	}
	return s
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

// client returns a client of s, closed when the test ends.
func (s *redisServer) client(t testing.TB) *redis.Client {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: s.addr, MaxRetries: -1, DialerRetries: 1})
	t.Cleanup(func() { rdb.Close() })
	if err := rdb.Ping(context.Background()).Err(); err != nil {
		t.Fatalf("PING %s: %v", s.addr, err)
	}
	return rdb
}

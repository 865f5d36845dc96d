package simulate

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// flushRecorder is a ResponseWriter that records, at each flush, the time
// and everything the client has received so far.
type flushRecorder struct {
	*httptest.ResponseRecorder
	flushes []flushAt
}

type flushAt struct {
	at   time.Duration // since the test's start
	body string        // everything received by then
}

func (f *flushRecorder) flushAt(start time.Time) {
	f.flushes = append(f.flushes, flushAt{time.Since(start), f.Body.String()})
}

type recordingWriter struct {
	rec   *flushRecorder
	start time.Time
}

func (w recordingWriter) Header() http.Header         { return w.rec.Header() }
func (w recordingWriter) Write(b []byte) (int, error) { return w.rec.Write(b) }
func (w recordingWriter) WriteHeader(code int)        { w.rec.WriteHeader(code) }
func (w recordingWriter) Flush()                      { w.rec.flushAt(w.start) }

// TestOutputQueueFlushesOnce pins that chunks queued at one wake-up leave in
// one flush, in order, and that queued bytes are flushed before the output
// sleeps for a later chunk rather than held back with it.
func TestOutputQueueFlushesOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		rec := &flushRecorder{ResponseRecorder: httptest.NewRecorder()}
		o := newOutput(context.Background(), recordingWriter{rec, start}, 0, false, true, &lateness{})
		time.Sleep(10 * time.Millisecond)
		// Three chunks already due (a stream that fell behind), then one
		// due 5 ms from now.
		for i, c := range []string{"a", "b", "c"} {
			if !o.queue(start.Add(time.Duration(i)*time.Millisecond), []byte(c)) {
				t.Fatalf("queue(%q) = false, want true", c)
			}
		}
		if !o.flush() {
			t.Fatal("flush() = false, want true")
		}
		if !o.queue(start.Add(15*time.Millisecond), []byte("d")) || !o.queue(start.Add(15*time.Millisecond), []byte("e")) {
			t.Fatal("queue = false, want true")
		}
		if !o.queue(start.Add(20*time.Millisecond), []byte("f")) || !o.flush() {
			t.Fatal("queue or flush = false, want true")
		}
		if !o.flush() {
			t.Fatal("flush() with nothing queued = false, want true")
		}
		want := []flushAt{
			{10 * time.Millisecond, "abc"},
			{15 * time.Millisecond, "abcde"}, // before sleeping for f
			{20 * time.Millisecond, "abcdef"},
		}
		if len(rec.flushes) != len(want) {
			t.Fatalf("flushes = %+v, want %+v", rec.flushes, want)
		}
		for i := range want {
			if rec.flushes[i] != want[i] {
				t.Errorf("flush %d = %+v, want %+v", i, rec.flushes[i], want[i])
			}
		}
	})
}

// countingListener counts the writes to its connections: the server's
// write system calls on a real socket.
type countingListener struct {
	net.Listener
	writes *atomic.Int64
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return countingConn{c, l.writes}, nil
}

type countingConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c countingConn) Write(b []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(b)
}

// TestStreamBehindIsCoalesced pins that a client that stops reading for a
// while gets the same bytes as a prompt one, and that the chunks which fell
// due meanwhile reach it in a few writes rather than one write each.
func TestStreamBehindIsCoalesced(t *testing.T) {
	const tokens = 60
	read := func(t *testing.T, stall time.Duration) (body string, writes int64) {
		var n atomic.Int64
		l := NewMemListener()
		l.buffer = 1024 // a small socket buffer: the stalled client blocks the server's writes
		s, err := NewServer(WithModel("m", &Fixed{TTFT: 10 * time.Millisecond, ITL: time.Millisecond}))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		hs := &http.Server{Handler: s}
		go hs.Serve(countingListener{l, &n})
		defer hs.Close()
		c := l.Client()
		defer c.CloseIdleConnections()
		res, err := c.Post("http://sim/v1/chat/completions", "application/json",
			strings.NewReader(`{"model":"m","stream":true,"max_tokens":60,"messages":[{"role":"user","content":"hi"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		time.Sleep(stall)
		b, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatalf("reading the body: %v", err)
		}
		return string(b), n.Load()
	}
	synctest.Test(t, func(t *testing.T) {
		prompt, promptWrites := read(t, 0)
		stalled, stalledWrites := read(t, 200*time.Millisecond)
		if stalled != prompt {
			t.Errorf("body after a stall = %q, want the prompt reader's %q", stalled, prompt)
		}
		if promptWrites < tokens {
			t.Errorf("writes to a prompt reader = %d, want one per chunk at least (%d)", promptWrites, tokens)
		}
		if stalledWrites > promptWrites/4 {
			t.Errorf("writes to a stalled reader = %d, want at most a quarter of the prompt reader's %d", stalledWrites, promptWrites)
		}
	})
}

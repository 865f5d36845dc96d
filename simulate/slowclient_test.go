//go:build unix

package simulate_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
)

// smallBuffers makes a listener's accepted connections send through a
// small socket buffer, so that a stream fills it quickly.
var smallBuffers = net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
	c.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_SNDBUF, 4096) })
	return nil
}}

// stallingClient sends a streaming chat request for tokens tokens to addr
// over a connection with a small receive buffer, reads the status line and
// then reads no more until the caller does.
func stallingClient(t *testing.T, addr string, tokens int) *bufio.Reader {
	t.Helper()
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		c.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
		return nil
	}}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	body := fmt.Sprintf(`{"model":"m","stream":true,"max_tokens":%d,"messages":[{"role":"user","content":"hi"}]}`, tokens)
	fmt.Fprintf(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
	r := bufio.NewReaderSize(c, 16)
	if line, err := r.ReadString('\n'); err != nil || !strings.HasPrefix(line, "HTTP/1.1 200") {
		t.Fatalf("stalling client: status line %q, %v", line, err)
	}
	return r
}

// promptStream streams a short chat completion from addr, and fails the
// test if its body does not end with [DONE].
func promptStream(t *testing.T, addr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a hang guard
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+"/v1/chat/completions",
		strings.NewReader(`{"model":"m","stream":true,"max_tokens":20,"messages":[{"role":"user","content":"hi"}]}`))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("prompt client: %v", err)
	}
	b, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil || !strings.HasSuffix(string(b), "data: [DONE]\n\n") {
		t.Fatalf("prompt client while another stalls: body ends %q, %v; want [DONE]", b[max(0, len(b)-40):], err)
	}
}

// shutdown shuts hs down, waiting for its handlers, and fails the test if
// they have not all ended within a generous guard.
func shutdown(t *testing.T, hs *http.Server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := hs.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown = %v, want nil (a handler still blocked on a client that does not read)", err)
	}
}

// A client that stops reading does not hold up the server's Close: its
// stream ends at once, though its handler was blocked writing to it, on
// either path (the driver writing the chunks, or the handler).
func TestCloseWithStalledClient(t *testing.T) {
	for _, direct := range []bool{false, true} {
		t.Run(fmt.Sprintf("direct=%v", direct), func(t *testing.T) {
			fixed := &simulate.Fixed{PerRequest: func(r simulate.Request) (time.Duration, time.Duration) {
				if r.ID == 1 {
					return 0, time.Microsecond
				}
				return ms(20), ms(5)
			}}
			s, err := simulate.NewServer(simulate.WithModel("m", fixed))
			if err != nil {
				t.Fatal(err)
			}
			hs := &http.Server{}
			if direct {
				hs.ConnContext = s.ConnContext
			}
			addr := loopbackServer(t, s, hs, smallBuffers)
			slow := stallingClient(t, addr, 20000)
			// The stalled stream is due in 20 ms; a prompt stream of the
			// same model completes meanwhile (no head-of-line blocking).
			promptStream(t, addr)

			s.Close()
			shutdown(t, hs)
			b, err := io.ReadAll(slow)
			if err == nil && strings.HasSuffix(string(b), "data: [DONE]\n\n") {
				t.Errorf("stalled client: body complete after Close, want it cut")
			}
		})
	}
}

// A client that takes none of a write's bytes for the write timeout is
// dropped: its handler ends and the engine's slot is freed while the client
// keeps its connection open without reading. Other streams keep going.
func TestStalledClientDropped(t *testing.T) {
	tests := []struct {
		name   string
		direct bool            // served with ConnContext
		opt    simulate.Option // the network model
		itl    time.Duration   // of the stalled stream (20,000 tokens)
	}{
		{"handler", false, nil, ms(1)},
		{"direct", true, nil, ms(1)},
		{"rtt", true, simulate.WithRTT(ms(2)), ms(1)},
		// The proxy holds the stream until its end, then writes it all.
		{"buffering", true, simulate.WithBuffering(true), time.Microsecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fixed := &simulate.Fixed{PerRequest: func(r simulate.Request) (time.Duration, time.Duration) {
				if r.ID == 1 {
					return 0, tt.itl
				}
				return ms(20), ms(5)
			}}
			s, err := simulate.NewServer(simulate.WithModel("m", fixed), simulate.WithWriteTimeout(100*time.Millisecond), tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			hs := &http.Server{}
			if tt.direct {
				hs.ConnContext = s.ConnContext
			}
			addr := loopbackServer(t, s, hs, smallBuffers)
			slow := stallingClient(t, addr, 20000)
			promptStream(t, addr)

			// Shutdown waits for every handler: the stalled one ends only
			// by being dropped, long before its stream's end.
			shutdown(t, hs)
			if st, _ := s.Stats("m"); st.Running != 0 {
				t.Errorf("Stats.Running = %d after the stalled client was dropped, want 0", st.Running)
			}
			b, err := io.ReadAll(slow)
			if err == nil && strings.HasSuffix(string(b), "data: [DONE]\n\n") {
				t.Errorf("stalled client: body complete, want it cut")
			}
			if err != nil && !errors.Is(err, syscall.ECONNRESET) {
				t.Errorf("stalled client: read error %v, want the body cut by EOF or a reset", err)
			}
		})
	}
}

// In virtual time: a client that stops reading is dropped when the write
// it stopped taking has waited the write timeout, and its engine slot is
// freed then; its body ends cut after the chunks written before.
func TestStalledClientDroppedInMemory(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		ts := simulate.StartInMemory(t, simulate.WithModel("m", &simulate.Fixed{ITL: ms(1)}),
			simulate.WithWriteTimeout(time.Second))
		// 100,000 tokens, one per ms: the connection's 256 KiB fill
		// within the first seconds.
		req, _ := http.NewRequest(http.MethodPost, strings.TrimSuffix(ts.URL, "/v1/")+"/v1/chat/completions",
			strings.NewReader(`{"model":"m","stream":true,"max_tokens":100000,"messages":[{"role":"user","content":"hi"}]}`))
		res, err := ts.Client.Do(req)
		if err != nil {
			t.Fatalf("POST: %v", err)
		}
		defer res.Body.Close()
		var dropped time.Duration
		for dropped == 0 && time.Since(start) < 10*time.Second {
			time.Sleep(ms(1)) // virtual: the client does not read
			synctest.Wait()
			if st, _ := ts.Server.Stats("m"); st.Running == 0 {
				dropped = time.Since(start)
			}
		}
		b, err := io.ReadAll(res.Body)
		if err == nil || strings.HasSuffix(string(b), "data: [DONE]\n\n") {
			t.Fatalf("body of the dropped client: %d bytes, error %v; want it cut with an error", len(b), err)
		}
		// Token k is due at k ms; the write of the first token the client
		// did not take whole (the last event it got, or the one after)
		// started when it was due.
		k := strings.Count(string(b), "data: ")
		if lo, hi := time.Duration(k-2)*ms(1)+time.Second, time.Duration(k+1)*ms(1)+time.Second; dropped < lo || dropped > hi {
			t.Errorf("dropped at %v after %d events, want between %v and %v (1 s after the stalled write)", dropped, k, lo, hi)
		}
	})
}

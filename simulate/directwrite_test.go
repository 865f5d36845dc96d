//go:build unix

package simulate_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
)

// loopbackServer serves s on a fresh 127.0.0.1 port of lc with hs's
// settings (Handler set to s) and returns its address.
func loopbackServer(t *testing.T, s *simulate.Server, hs *http.Server, lc net.ListenConfig) string {
	t.Helper()
	l, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	hs.Handler = s
	served := make(chan struct{})
	go func() { hs.Serve(simulate.JSONErrorPages(l)); close(served) }()
	t.Cleanup(func() {
		hs.Close()
		<-served
		s.Close()
	})
	return l.Addr().String()
}

// rawPost sends body to path over a new TCP connection to addr, as an
// HTTP/1.1 request that closes the connection, and returns the response's
// head and its body as it came off the wire (chunked framing included).
// setup, if not nil, runs on the connection first.
func rawPost(t *testing.T, addr, path, body string, setup func(*net.TCPConn)) (head, wire string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer c.Close()
	if setup != nil {
		setup(c.(*net.TCPConn))
	}
	fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", path, len(body), body)
	all, err := io.ReadAll(c)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	head, wire, ok := strings.Cut(string(all), "\r\n\r\n")
	if !ok {
		t.Fatalf("response %q has no end of headers", all)
	}
	return head, wire
}

// dechunk decodes a chunked body that must end with the last chunk.
func dechunk(t *testing.T, wire string) string {
	t.Helper()
	b, err := io.ReadAll(httputil.NewChunkedReader(strings.NewReader(wire)))
	if err != nil {
		t.Fatalf("chunked body %q: %v", wire, err)
	}
	if !strings.HasSuffix(wire, "0\r\n\r\n") {
		t.Fatalf("chunked body ends %q, want the last chunk", wire[max(0, len(wire)-20):])
	}
	return string(b)
}

// directCount returns the server's count of chunks its driver wrote itself,
// whole and partial, from GET /metrics.
func directCount(t *testing.T, addr string) (whole, partial int) {
	t.Helper()
	res, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatalf("metrics: %v", err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	for _, line := range strings.Split(string(b), "\n") {
		fmt.Sscanf(line, `tokenpace_sim_direct_chunks_total{written="whole"} %d`, &whole)
		fmt.Sscanf(line, `tokenpace_sim_direct_chunks_total{written="partial"} %d`, &partial)
	}
	return whole, partial
}

var createdField = regexp.MustCompile(`"created(_at)?":\d+`)

// A server given ConnContext writes its stream chunks from the driver; the
// body the client receives is the same as through the ResponseWriter, byte
// for byte, for every streaming API, and its framing is net/http's.
func TestDirectWriteSameBody(t *testing.T) {
	tests := []struct{ name, path, body string }{
		{"chat", "/v1/chat/completions", `{"model":"m","stream":true,"stream_options":{"include_usage":true},"max_tokens":12,"messages":[{"role":"user","content":"hi"}]}`},
		{"completions", "/v1/completions", `{"model":"m","stream":true,"max_tokens":12,"prompt":"def f(","suffix":"return x"}`},
		{"responses", "/v1/responses", `{"model":"m","stream":true,"max_output_tokens":12,"input":"hi"}`},
		{"tool calls", "/v1/chat/completions", `{"model":"m","stream":true,"max_tokens":40,"messages":[{"role":"user","content":"weather?"}],"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object"}}}],"tool_choice":"required"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			servers := make([]string, 2) // direct, then through the ResponseWriter
			for i := range servers {
				// The first token is due 200 ms after the request, long
				// after the handler hands the stream to the driver, however
				// late a loaded machine runs the handler.
				s, err := simulate.NewServer(simulate.WithModel("m", &simulate.Fixed{TTFT: 200 * time.Millisecond, ITL: time.Millisecond}), simulate.WithSeed(7))
				if err != nil {
					t.Fatal(err)
				}
				hs := &http.Server{}
				if i == 0 {
					hs.ConnContext = s.ConnContext
				}
				servers[i] = loopbackServer(t, s, hs, net.ListenConfig{})
			}
			var bodies [2]string
			for i, addr := range servers {
				head, wire := rawPost(t, addr, tt.path, tt.body, nil)
				if !strings.Contains(head, "Transfer-Encoding: chunked") {
					t.Fatalf("server %d: head %q, want a chunked response", i, head)
				}
				bodies[i] = createdField.ReplaceAllString(dechunk(t, wire), `"created$1":0`)
			}
			if bodies[0] != bodies[1] {
				t.Errorf("direct body =\n%s\nwant (through the ResponseWriter)\n%s", bodies[0], bodies[1])
			}
			if !strings.Contains(bodies[0], "data: ") {
				t.Errorf("body %q holds no event", bodies[0])
			}
			if whole, _ := directCount(t, servers[0]); whole == 0 {
				t.Errorf("direct server: %d chunks written by the driver, want some", whole)
			}
			if whole, partial := directCount(t, servers[1]); whole+partial != 0 {
				t.Errorf("server without ConnContext: %d+%d chunks written by the driver, want 0", whole, partial)
			}
		})
	}
}

// A client that stops reading fills its connection's buffers; the driver
// leaves the rest of that stream to the request's goroutine and carries on,
// so another stream of the same model completes meanwhile, and the slow
// client still gets its whole body once it reads.
func TestDirectWriteSlowClient(t *testing.T) {
	const tokens = 20000
	// The slow client's stream (request 1) is due from 50 to 70 ms, long
	// after its response was handed to the driver; the prompt client's
	// from 100 ms, once the driver has met the slow client's full buffers.
	fixed := &simulate.Fixed{PerRequest: func(r simulate.Request) (time.Duration, time.Duration) {
		if r.ID == 1 {
			return ms(50), time.Microsecond
		}
		return ms(100), 50 * time.Microsecond
	}}
	s, err := simulate.NewServer(simulate.WithModel("m", fixed))
	if err != nil {
		t.Fatal(err)
	}
	// Small send buffers (accepted connections inherit the listener's),
	// so that the stream fills them quickly.
	small := net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
		c.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_SNDBUF, 4096) })
		return nil
	}}
	addr := loopbackServer(t, s, &http.Server{ConnContext: s.ConnContext}, small)

	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		c.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
		return nil
	}}
	slow, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer slow.Close()
	body := fmt.Sprintf(`{"model":"m","stream":true,"max_tokens":%d,"messages":[{"role":"user","content":"hi"}]}`, tokens)
	fmt.Fprintf(slow, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
	// Wait for the headers only: the server is streaming.
	r := bufio.NewReaderSize(slow, 16)
	if line, err := r.ReadString('\n'); err != nil || !strings.HasPrefix(line, "HTTP/1.1 200") {
		t.Fatalf("slow client: status line %q, %v", line, err)
	}

	// Meanwhile, a prompt client on the same model: the driver is not
	// held up.
	promptStream(t, addr)

	rest, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("slow client: %v", err)
	}
	_, wire, _ := strings.Cut(string(rest), "\r\n\r\n")
	got := dechunk(t, wire)
	if n := strings.Count(got, `"content":"`) - strings.Count(got, `"content":""`); n != tokens {
		t.Errorf("slow client: %d content chunks, want %d", n, tokens)
	}
	if !strings.HasSuffix(got, "data: [DONE]\n\n") {
		t.Errorf("slow client: body ends %q, want [DONE]", got[max(0, len(got)-40):])
	}
	whole, partial := directCount(t, addr)
	if whole == 0 || partial == 0 {
		t.Errorf("direct writes whole, partial = %d, %d; want both > 0 (the slow stream handed over)", whole, partial)
	}
}

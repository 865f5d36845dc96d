package tokenpace_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
)

// closingServer serves streams over loopback as llama.cpp's server does:
// it says Keep-Alive, yet closes every connection after one stream. It
// closes once the next request on the connection has arrived, so that the
// client always meets the close after it reused the connection: the race
// that a real server loses now and then, made certain. It returns its base
// URL.
func closingServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns sync.WaitGroup
	t.Cleanup(func() {
		_ = l.Close()
		conns.Wait()
	})
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns.Go(func() { serveOnce(c) })
		}
	}()
	return "http://" + l.Addr().String() + "/v1/"
}

// serveOnce answers the first request on c with a stream, then closes c
// once a second request has arrived on it.
func serveOnce(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	req, err := http.ReadRequest(br)
	if err != nil {
		return
	}
	_, _ = io.Copy(io.Discard, req.Body)
	body := chunk("c", "Hello", "", "") + chunk("c", " world.", "stop", `{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}`) + "data: [DONE]\n\n"
	_, _ = fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nKeep-Alive: timeout=5, max=100\r\n"+
		"Transfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", len(body), body)
	_, _ = http.ReadRequest(br) // the next request: never answered
}

// A request that failed on a reused connection before any response byte
// was never processed: it is sent again, so that no request fails against
// a server that closes after every stream, and Timing.HTTP shows both
// tries. The client then pools none of that server's connections.
func TestServerClosesAfterEachStream(t *testing.T) {
	base := closingServer(t)
	hc := &http.Client{Transport: &http.Transport{}}
	defer hc.CloseIdleConnections()
	oc := openai.NewClient(option.WithBaseURL(base), option.WithAPIKey("k"), option.WithMaxRetries(0), option.WithHTTPClient(hc))
	c := tokenpace.NewClient(oc)
	r, err := tokenpace.NewRouter(c, tokenpace.Policy{}, route("m"))
	if err != nil {
		t.Fatal(err)
	}
	resent := 0
	for i := range 20 {
		var s *tokenpace.Stream
		if i%2 == 0 {
			s = c.NewStreaming(context.Background(), chat("m", 10))
		} else {
			s = r.NewStreaming(context.Background(), chat("m", 10))
		}
		if got := readAll(t, s); got != "Hello world." || s.Err() != nil {
			t.Fatalf("request %d: read %q, Err() = %v; want %q, nil", i, got, s.Err(), "Hello world.")
		}
		tm := s.Timing()
		if n := len(tm.HTTP); n > 1 {
			resent++
			if h := tm.HTTP[0]; !h.Conn.Reused || h.Err == nil || h.Status != 0 {
				t.Errorf("request %d: first HTTP try %+v, want a reused connection that failed without a response", i, h)
			}
			if h := tm.HTTP[n-1]; h.Status != http.StatusOK {
				t.Errorf("request %d: last HTTP try status %d, want 200", i, h.Status)
			}
		}
		if tm.TTFT() <= 0 || tm.Sent.After(tm.HTTP[0].Start) {
			t.Errorf("request %d: TTFT %v from %v; want it counted from the first try, %v", i, tm.TTFT(), tm.Sent, tm.HTTP[0].Start)
		}
	}
	if resent != 1 {
		t.Errorf("%d requests sent again, want 1: the first that met a closed connection, after which the client pools none of the server's", resent)
	}
}

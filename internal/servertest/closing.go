// Package servertest holds test servers that play a real server's habit
// over loopback, for the tests of tokenpace's modules.
package servertest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
)

// Closing serves over loopback as llama.cpp's server does: it answers
// HTTP/1.1 with Keep-Alive and without Connection: close, yet closes every
// connection after one response. It closes once the next request on the
// connection has arrived, so that a client always meets the close after it
// reused the connection: the race a real client loses now and then, made
// certain. answer, which may read the request's body, gives each
// request's Content-Type and body. It returns
// the server's address, "127.0.0.1:port"; the server stops when t ends.
func Closing(t testing.TB, answer func(*http.Request) (contentType, body string)) string {
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
			conns.Go(func() { serveOnce(c, answer) })
		}
	}()
	return l.Addr().String()
}

// serveOnce answers the first request on c, then closes c once a second
// request has arrived on it.
func serveOnce(c net.Conn, answer func(*http.Request) (string, string)) {
	defer c.Close()
	br := bufio.NewReader(c)
	req, err := http.ReadRequest(br)
	if err != nil {
		return
	}
	b, _ := io.ReadAll(req.Body)
	req.Body = io.NopCloser(bytes.NewReader(b)) // answer may read it
	ct, body := answer(req)
	_, _ = fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: %s\r\nKeep-Alive: timeout=5, max=100\r\n"+
		"Transfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", ct, len(body), body)
	_, _ = http.ReadRequest(br) // the next request: never answered
}

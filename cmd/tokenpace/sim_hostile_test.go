package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
)

// startSim runs `tokenpace sim` with args on a free port until the test
// ends and returns its address (host:port).
func startSim(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	code := make(chan int, 1)
	go func() {
		code <- runSim(ctx, append([]string{"--addr", "127.0.0.1:0"}, args...), outW, &stderr)
		outW.Close()
	}()
	t.Cleanup(func() {
		cancel()
		if got := <-code; got != 0 {
			t.Errorf("runSim exit = %d, want 0 (stderr %q)", got, stderr.String())
		}
	})
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the base URL: %v", err)
	}
	go io.Copy(io.Discard, outR)
	return strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(line), "http://"), "/v1")
}

// exchangeOn sends req on a new connection to addr, reads one response
// and reports whether the server then closed the connection. The
// connection's deadline only guards against a hung test.
func exchangeOn(t *testing.T, addr, req string) (*http.Response, bool) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := c.Write([]byte(req)); err != nil {
		t.Fatalf("write: %v", err)
	}
	r := bufio.NewReader(c)
	res, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatalf("reading the response: %v", err)
	}
	io.Copy(io.Discard, res.Body)
	_, err = r.ReadByte()
	return res, errors.Is(err, io.EOF)
}

// Idle keep-alive connections and partial bodies are dropped at the
// timeouts the flags set.
func TestSimDropsIdleAndPartialRequests(t *testing.T) {
	addr := startSim(t, "--ttft", "1ms", "--idle-timeout", "50ms", "--body-timeout", "50ms")
	res, closed := exchangeOn(t, addr, "GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
	if res.StatusCode != http.StatusOK || !closed {
		t.Errorf("idle keep-alive: status %d, closed %v, want 200 and closed", res.StatusCode, closed)
	}
	res, closed = exchangeOn(t, addr, "POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 50\r\n\r\n{")
	if res.StatusCode != http.StatusRequestTimeout || !closed {
		t.Errorf("partial body: status %d, closed %v, want 408 and closed", res.StatusCode, closed)
	}
}

// The fault header works only with --fault-header.
func TestSimFaultHeaderFlag(t *testing.T) {
	tests := []struct {
		args []string
		want int
	}{
		{nil, http.StatusOK},
		{[]string{"--fault-header"}, http.StatusServiceUnavailable},
	}
	for _, tt := range tests {
		addr := startSim(t, append([]string{"--ttft", "1ms"}, tt.args...)...)
		body := `{"model":"sim","max_tokens":1,"prompt":"hi"}`
		req := "POST /v1/completions HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + simulate.FaultHeader + ": 503\r\nContent-Length: " +
			strconv.Itoa(len(body)) + "\r\n\r\n" + body
		if res, _ := exchangeOn(t, addr, req); res.StatusCode != tt.want {
			t.Errorf("sim %q with %s: 503: status %d, want %d", tt.args, simulate.FaultHeader, res.StatusCode, tt.want)
		}
	}
}

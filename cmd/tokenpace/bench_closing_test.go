package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"
)

// closingServer serves chat streams over loopback as llama.cpp's server
// does: it says Keep-Alive, yet closes every connection after one
// response, once the next request on it has arrived (the race a real
// client loses now and then, made certain). It returns its base URL.
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
			conns.Go(func() {
				defer c.Close()
				br := bufio.NewReader(c)
				req, err := http.ReadRequest(br)
				if err != nil {
					return
				}
				_, _ = io.Copy(io.Discard, req.Body)
				ct, body := "text/event-stream", `data: {"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}`+"\n\ndata: [DONE]\n\n"
				if strings.HasSuffix(req.URL.Path, "/models") {
					ct, body = "application/json", `{"object":"list","data":[{"id":"m","object":"model"}]}`
				}
				_, _ = fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: %s\r\nKeep-Alive: timeout=5, max=100\r\n"+
					"Transfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", ct, len(body), body)
				_, _ = http.ReadRequest(br) // the next request: never answered
			})
		}
	}()
	return "http://" + l.Addr().String() + "/v1"
}

// bench against a server that closes every connection after a stream,
// while saying Keep-Alive, fails no request.
func TestBenchServerClosesAfterEachStream(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	for _, conc := range []string{"1", "4"} {
		out := benchJSON(t, t.Context(), 0, "--base-url", closingServer(t), "--model", "m", "--requests", "40",
			"--concurrency", conc, "--max-tokens", "1", "--warmup", "2")
		if *out.Completed != 40 || *out.Failed != 0 {
			t.Errorf("concurrency %s: completed, failed = %v, %v, want 40, 0 (errors %v)", conc, *out.Completed, *out.Failed, out.Errors)
		}
	}
}

package simulate_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
)

// A server on a TCP port, with its ConnContext set on the http.Server: the
// model's driver then writes each stream chunk straight to the connection
// when it is due, instead of waking the request's goroutine to write it.
// The client receives the same bytes either way.
func ExampleServer_ConnContext() {
	srv, err := simulate.NewServer(
		simulate.WithModel("m", &simulate.Fixed{TTFT: 5 * time.Millisecond, ITL: time.Millisecond}),
		simulate.WithReply(func(simulate.ReplyInfo) (string, bool) { return "Hello over TCP.", true }),
	)
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	hs := &http.Server{Handler: srv, ConnContext: srv.ConnContext}
	go hs.Serve(simulate.JSONErrorPages(l))
	defer hs.Close()

	res, err := http.Post("http://"+l.Addr().String()+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		panic(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Header.Get("Content-Type"))
	fmt.Println(strings.Count(string(body), `"content":"`)-strings.Count(string(body), `"content":""`), "content chunks")
	fmt.Println(strings.HasSuffix(string(body), "data: [DONE]\n\n"))
	// Output:
	// text/event-stream
	// 3 content chunks
	// true
}

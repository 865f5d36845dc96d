package simulate_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
)

// A client that asks for a long stream and then stops reading is dropped
// once a write has waited the write timeout for it: its request ends, the
// engine's slot is freed, and http.Server.Shutdown, which waits for
// running requests, returns. The client's body ends cut.
func ExampleWithWriteTimeout() {
	srv, err := simulate.NewServer(
		simulate.WithModel("m", &simulate.Fixed{ITL: 10 * time.Microsecond}),
		simulate.WithWriteTimeout(100*time.Millisecond),
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

	// 131,072 tokens, about 25 MB of events: more than the connection's
	// buffers hold.
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		panic(err)
	}
	defer c.Close()
	body := `{"model":"m","stream":true,"max_tokens":131072,"messages":[{"role":"user","content":"hi"}]}`
	fmt.Fprintf(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	r := bufio.NewReader(c)
	status, _ := r.ReadString('\n')
	fmt.Println(strings.TrimSpace(status)) // then the client reads no more

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	fmt.Println("shutdown:", hs.Shutdown(ctx))
	st, _ := srv.Stats("m")
	fmt.Println("running:", st.Running)
	rest, _ := io.ReadAll(r)
	fmt.Println("complete body:", strings.HasSuffix(string(rest), "data: [DONE]\n\n"))
	// Output:
	// HTTP/1.1 200 OK
	// shutdown: <nil>
	// running: 0
	// complete body: false
}

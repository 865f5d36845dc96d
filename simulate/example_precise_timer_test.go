package simulate_test

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
)

// A server on a real port with the precise timer, as a long-running
// simulator for a benchmark would be: its chunks leave within a fraction of
// a millisecond of their schedule instead of up to a millisecond late.
func ExampleWithPreciseTimer() {
	srv, err := simulate.NewServer(
		simulate.WithModel("m", &simulate.Fixed{TTFT: 2 * time.Millisecond, ITL: 500 * time.Microsecond}),
		simulate.WithPreciseTimer(true),
		simulate.WithReply(func(simulate.ReplyInfo) (string, bool) { return "On time.", true }),
	)
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	hs := &http.Server{Handler: srv}
	go hs.Serve(l)
	defer hs.Close()
	defer http.DefaultClient.CloseIdleConnections()

	body := `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`
	res, err := http.Post("http://"+l.Addr().String()+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		panic(err)
	}
	defer res.Body.Close()
	events := bufio.NewScanner(res.Body)
	for events.Scan() {
		if line := events.Text(); strings.Contains(line, `"content":"`) && !strings.Contains(line, `"content":""`) {
			_, after, _ := strings.Cut(line, `"content":`)
			content, _, _ := strings.Cut(after, `}`)
			fmt.Println(content)
		}
	}
	// Output:
	// "On"
	// " time."
}

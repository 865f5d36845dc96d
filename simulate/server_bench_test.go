package simulate_test

import (
	"bufio"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
)

// BenchmarkStreamChunk measures the cost of one streamed chunk, server and
// client together, over the in-memory transport in real time: 100-token
// streams with a 1 µs ITL, so the timer path is exercised.
//
//	go test -run XXX -bench StreamChunk -benchmem ./simulate/
func BenchmarkStreamChunk(b *testing.B) {
	const tokens = 100
	s, err := simulate.NewServer(simulate.WithModel("m", &simulate.Fixed{ITL: time.Microsecond}))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	l := simulate.NewMemListener()
	hs := &http.Server{Handler: s}
	go hs.Serve(l)
	defer hs.Close()
	c := l.Client()
	defer c.CloseIdleConnections()
	body := `{"model":"m","stream":true,"max_tokens":100,"messages":[{"role":"user","content":"hi"}]}`
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := c.Post("http://sim/v1/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		r := bufio.NewReader(res.Body)
		for {
			if _, err := r.ReadSlice('\n'); err != nil {
				break
			}
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*tokens), "ns/chunk")
}

package tokenpace_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
)

// cannedTransport answers every request at once with body, in process: no
// network, so a benchmark measures the client's own work.
type cannedTransport struct{ body string }

func (c cannedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	return &http.Response{
		StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {"text/event-stream"}},
		Body:    io.NopCloser(strings.NewReader(c.body)),
		Request: req,
	}, nil
}

// cannedStream returns an event stream of n one-token content chunks with
// a finish chunk, a usage chunk and [DONE].
func cannedStream(n int) string {
	const head = `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[`
	var b strings.Builder
	b.WriteString(head + `{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}` + "\n\n")
	for i := range n {
		fmt.Fprintf(&b, head+`{"index":0,"delta":{"content":" w%d"},"finish_reason":null}]}`+"\n\n", i)
	}
	b.WriteString(head + `{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n")
	fmt.Fprintf(&b, head+`],"usage":{"prompt_tokens":9,"completion_tokens":%d,"total_tokens":%d}}`+"\n\n", n, n+9)
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

// BenchmarkRouting measures the routing layer's cost per call: the same
// calls through a plain Client and through a Router with a budget on every
// phase (its watchdog armed), a circuit breaker, a hedge timer armed and a
// second route, none of which acts. The difference between the two is the
// decision overhead; comparing 8 and 256 tokens shows whether it grows
// with the tokens.
//
//	go test -run '^$' -bench BenchmarkRouting -benchmem -count 6 .
func BenchmarkRouting(b *testing.B) {
	for _, n := range []int{8, 256} {
		oc := openai.NewClient(option.WithBaseURL("http://canned.invalid/v1/"), option.WithAPIKey("x"),
			option.WithMaxRetries(0), option.WithHTTPClient(&http.Client{Transport: cannedTransport{cannedStream(n)}}))
		client := tokenpace.NewClient(oc)
		router, err := tokenpace.NewRouter(client, tokenpace.Policy{
			Budget: tokenpace.Budget{TTFT: time.Minute, Gap: time.Minute, Total: time.Hour, MinTPS: 0.001},
			Hedge:  tokenpace.Hedge{After: time.Minute},
		}, route("a"), route("b"))
		if err != nil {
			b.Fatal(err)
		}
		params := chat("m", n)
		run := func(b *testing.B, start func() *tokenpace.Stream) {
			b.ReportAllocs()
			for b.Loop() {
				s := start()
				for s.Next() {
				}
				if err := s.Err(); err != nil {
					b.Fatal(err)
				}
				s.Close()
			}
		}
		b.Run(fmt.Sprintf("tokens=%d/plain", n), func(b *testing.B) {
			run(b, func() *tokenpace.Stream { return client.NewStreaming(context.Background(), params) })
		})
		b.Run(fmt.Sprintf("tokens=%d/router", n), func(b *testing.B) {
			run(b, func() *tokenpace.Stream { return router.NewStreaming(context.Background(), params) })
		})
		// Paired: one plain and one routed call per iteration, alternating
		// which goes first, so that drift in the machine's speed hits both
		// alike; reports each one's mean and their difference.
		b.Run(fmt.Sprintf("tokens=%d/paired", n), func(b *testing.B) {
			var plain, routed time.Duration
			one := func(start func() *tokenpace.Stream) time.Duration {
				t0 := time.Now()
				s := start()
				for s.Next() {
				}
				if err := s.Err(); err != nil {
					b.Fatal(err)
				}
				s.Close()
				return time.Since(t0)
			}
			p := func() *tokenpace.Stream { return client.NewStreaming(context.Background(), params) }
			r := func() *tokenpace.Stream { return router.NewStreaming(context.Background(), params) }
			i := 0
			for b.Loop() {
				if i%2 == 0 {
					plain += one(p)
					routed += one(r)
				} else {
					routed += one(r)
					plain += one(p)
				}
				i++
			}
			b.ReportMetric(float64(plain.Nanoseconds())/float64(i), "plain-ns/call")
			b.ReportMetric(float64(routed.Nanoseconds())/float64(i), "router-ns/call")
			b.ReportMetric(float64((routed-plain).Nanoseconds())/float64(i), "overhead-ns/call")
		})
	}
}

package tokenpace_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"syscall"
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
// calls through a plain Client ("plain"), a Router with one route and
// nothing to enforce ("bare": the policy source alone), and a Router with a
// budget on every phase (its watchdog armed), a circuit breaker, a hedge
// timer armed and a second route, none of which acts ("full"). Each
// iteration makes one call of each kind, rotating their order so that
// drift in the machine's speed hits all alike, and reports each kind's mean
// wall time and process CPU time per call; comparing 8 and 256 tokens shows
// whether the cost grows with the tokens.
//
//	go test -run '^$' -bench BenchmarkRouting -benchtime 2000x -count 3 .
func BenchmarkRouting(b *testing.B) {
	for _, n := range []int{8, 256} {
		b.Run(fmt.Sprintf("tokens=%d", n), func(b *testing.B) {
			oc := openai.NewClient(option.WithBaseURL("http://canned.invalid/v1/"), option.WithAPIKey("x"),
				option.WithMaxRetries(0), option.WithHTTPClient(&http.Client{Transport: cannedTransport{cannedStream(n)}}))
			client := tokenpace.NewClient(oc)
			bare, err := tokenpace.NewRouter(client, tokenpace.Policy{Breaker: tokenpace.BreakerSettings{Disabled: true}}, route("a"))
			if err != nil {
				b.Fatal(err)
			}
			full, err := tokenpace.NewRouter(client, tokenpace.Policy{
				Budget: tokenpace.Budget{TTFT: time.Minute, Gap: time.Minute, E2E: time.Hour, MinTPS: 0.001},
				Hedge:  tokenpace.Hedge{After: time.Minute},
			}, route("a"), route("b"))
			if err != nil {
				b.Fatal(err)
			}
			params := chat("m", n)
			names := []string{"plain", "bare", "full"}
			starts := []func() *tokenpace.Stream[openai.ChatCompletionChunk]{
				func() *tokenpace.Stream[openai.ChatCompletionChunk] {
					return client.NewStreaming(context.Background(), params)
				},
				func() *tokenpace.Stream[openai.ChatCompletionChunk] {
					return bare.NewStreaming(context.Background(), params)
				},
				func() *tokenpace.Stream[openai.ChatCompletionChunk] {
					return full.NewStreaming(context.Background(), params)
				},
			}
			var wall, cpu [3]time.Duration
			i := 0
			for b.Loop() {
				for k := range starts {
					j := (k + i) % len(starts)
					c0, t0 := processCPU(), time.Now()
					s := starts[j]()
					for s.Next() {
					}
					if err := s.Err(); err != nil {
						b.Fatal(err)
					}
					s.Close()
					wall[j] += time.Since(t0)
					cpu[j] += processCPU() - c0
				}
				i++
			}
			for j, name := range names {
				b.ReportMetric(float64(wall[j].Nanoseconds())/float64(i), name+"-ns/call")
				b.ReportMetric(float64(cpu[j].Nanoseconds())/float64(i), name+"-cpu-ns/call")
			}
		})
	}
}

// processCPU returns the CPU time, user and system, the process has used
// on all its threads: less disturbed by other processes than wall time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkRoutingAllocs reports the allocations of a plain call and of a
// "full" routed call (see BenchmarkRouting), 8 tokens.
//
//	go test -run '^$' -bench BenchmarkRoutingAllocs -benchmem .
func BenchmarkRoutingAllocs(b *testing.B) {
	oc := openai.NewClient(option.WithBaseURL("http://canned.invalid/v1/"), option.WithAPIKey("x"),
		option.WithMaxRetries(0), option.WithHTTPClient(&http.Client{Transport: cannedTransport{cannedStream(8)}}))
	client := tokenpace.NewClient(oc)
	full, err := tokenpace.NewRouter(client, tokenpace.Policy{
		Budget: tokenpace.Budget{TTFT: time.Minute, Gap: time.Minute, E2E: time.Hour, MinTPS: 0.001},
		Hedge:  tokenpace.Hedge{After: time.Minute},
	}, route("a"), route("b"))
	if err != nil {
		b.Fatal(err)
	}
	params := chat("m", 8)
	for _, v := range []struct {
		name  string
		start func() *tokenpace.Stream[openai.ChatCompletionChunk]
	}{
		{"plain", func() *tokenpace.Stream[openai.ChatCompletionChunk] {
			return client.NewStreaming(context.Background(), params)
		}},
		{"full", func() *tokenpace.Stream[openai.ChatCompletionChunk] {
			return full.NewStreaming(context.Background(), params)
		}},
	} {
		b.Run(v.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s := v.start()
				for s.Next() {
				}
				s.Close()
			}
		})
	}
}

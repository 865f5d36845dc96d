package tokenpace_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// sseStream returns an event stream of n content chunks, as OpenAI sends
// them, with a role chunk, a finish chunk, a usage chunk and [DONE].
func sseStream(n int) string {
	const head = `data: {"id":"chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT","object":"chat.completion.chunk","created":1741569952,"model":"gpt-4.1-2025-04-14","service_tier":"default","system_fingerprint":"fp_44added55e","choices":[`
	var b strings.Builder
	b.WriteString(head + `{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null}` + "\n\n")
	for i := range n {
		fmt.Fprintf(&b, head+`{"index":0,"delta":{"content":" word%d"},"logprobs":null,"finish_reason":null}],"usage":null}`+"\n\n", i)
	}
	b.WriteString(head + `{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null}` + "\n\n")
	fmt.Fprintf(&b, head+`],"usage":{"prompt_tokens":19,"completion_tokens":%d,"total_tokens":%d,"prompt_tokens_details":{"cached_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}}`+"\n\n", n, n+19)
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

// sseServer serves body as an event stream on loopback.
func sseServer(b *testing.B, body string) openai.Client {
	b.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(body))
	}))
	b.Cleanup(srv.Close)
	return openai.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("x"), option.WithMaxRetries(0),
		option.WithHTTPClient(srv.Client()))
}

// BenchmarkStream compares reading the same loopback event stream with
// bare openai-go, bare openai-go feeding a ChatCompletionAccumulator (which
// a tokenpace Stream always does), and tokenpace, in one run. ns/chunk and
// allocs/chunk are per content chunk, the request's fixed costs included;
// the difference between two chunk counts isolates the per-chunk cost.
func BenchmarkStream(b *testing.B) {
	for _, n := range []int{64, 1024} {
		body := sseStream(n)
		params := chat("gpt-4.1", n)
		run := func(b *testing.B, read func() error) {
			b.ReportAllocs()
			for b.Loop() {
				if err := read(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/chunk")
		}
		b.Run(fmt.Sprintf("chunks=%d/bare", n), func(b *testing.B) {
			oc := sseServer(b, body)
			run(b, func() error {
				s := oc.Chat.Completions.NewStreaming(context.Background(), params)
				for s.Next() {
					_ = s.Current()
				}
				return s.Err()
			})
		})
		b.Run(fmt.Sprintf("chunks=%d/bare+acc", n), func(b *testing.B) {
			oc := sseServer(b, body)
			run(b, func() error {
				s := oc.Chat.Completions.NewStreaming(context.Background(), params)
				var acc openai.ChatCompletionAccumulator
				for s.Next() {
					acc.AddChunk(s.Current())
				}
				return s.Err()
			})
		})
		b.Run(fmt.Sprintf("chunks=%d/tokenpace", n), func(b *testing.B) {
			c := tokenpace.NewClient(sseServer(b, body))
			run(b, func() error {
				s := c.NewStreaming(context.Background(), params)
				for s.Next() {
					_ = s.Current()
				}
				s.Close()
				return s.Err()
			})
		})
	}
}

// BenchmarkFirstChunk measures the time from the call to the first chunk
// returned by Next, on loopback, for bare openai-go and for tokenpace in
// the same run: the difference is the TTFT the wrapper adds.
func BenchmarkFirstChunk(b *testing.B) {
	body := sseStream(1)
	params := chat("gpt-4.1", 1)
	run := func(b *testing.B, first func() (func(), error)) {
		var total time.Duration
		for b.Loop() {
			start := time.Now()
			done, err := first()
			total += time.Since(start)
			if err != nil {
				b.Fatal(err)
			}
			done()
		}
		b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns/first-chunk")
	}
	b.Run("bare", func(b *testing.B) {
		oc := sseServer(b, body)
		run(b, func() (func(), error) {
			s := oc.Chat.Completions.NewStreaming(context.Background(), params)
			s.Next()
			return func() {
				for s.Next() {
				}
			}, s.Err()
		})
	})
	b.Run("tokenpace", func(b *testing.B) {
		c := tokenpace.NewClient(sseServer(b, body))
		run(b, func() (func(), error) {
			s := c.NewStreaming(context.Background(), params)
			s.Next()
			return func() {
				for s.Next() {
				}
				s.Close()
			}, s.Err()
		})
	})
}

// BenchmarkAccuracy streams from the simulator over real loopback HTTP,
// 64 streams at once, and reports how far measured TTFT and ITL are from
// the simulator's schedule: |measured − scheduled|, p50, p99 and max in
// microseconds over every stream and gap of the run.
func BenchmarkAccuracy(b *testing.B) {
	const (
		streams = 64
		tokens  = 50
		ttft    = 50 * time.Millisecond
		itl     = 10 * time.Millisecond
	)
	ts := simulate.StartLoopback(b, simulate.WithModel("m", &simulate.Fixed{TTFT: ttft, ITL: itl}))
	c := tokenpace.NewClient(openai.NewClient(option.WithBaseURL(ts.URL), option.WithHTTPClient(ts.Client),
		option.WithAPIKey("x"), option.WithMaxRetries(0)))
	var (
		mu              sync.Mutex
		ttftErr, itlErr []time.Duration
	)
	abs := func(d time.Duration) time.Duration { return max(d, -d) }
	for b.Loop() {
		var wg sync.WaitGroup
		for range streams {
			wg.Go(func() {
				s := c.NewStreaming(context.Background(), chat("m", tokens))
				for s.Next() {
				}
				s.Close()
				if err := s.Err(); err != nil {
					b.Error(err)
					return
				}
				tm := s.Timing()
				mu.Lock()
				defer mu.Unlock()
				ttftErr = append(ttftErr, abs(tm.TTFT()-ttft))
				for _, g := range tm.ITL() {
					itlErr = append(itlErr, abs(g-itl))
				}
			})
		}
		wg.Wait()
	}
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
	for _, m := range []struct {
		name string
		d    []time.Duration
	}{{"ttft", ttftErr}, {"itl", itlErr}} {
		st := tokenpace.Summarize(slices.Clone(m.d))
		b.ReportMetric(us(st.P50), m.name+"-err-p50-µs")
		b.ReportMetric(us(st.P99), m.name+"-err-p99-µs")
		b.ReportMetric(us(st.Max), m.name+"-err-max-µs")
	}
}

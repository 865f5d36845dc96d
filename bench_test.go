package tokenpace_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/metrics"
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

// cpuTime returns the CPU time the process has used, user and system, on
// every thread: a benchmark's server runs in the process too, the same for
// every variant.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// bodyTransport answers every request with an event stream of body, in
// process: no socket, no server goroutine, so that only client work is
// timed.
type bodyTransport struct{ body string }

func (t bodyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		_ = r.Body.Close()
	}
	return &http.Response{
		StatusCode: 200, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {"text/event-stream"}},
		Body:    io.NopCloser(&eventReader{rest: t.body}),
		Request: r, ContentLength: -1,
	}, nil
}

// eventReader returns at most one event per Read, as a stream arriving
// over a network at generation speed does.
type eventReader struct{ rest string }

func (r *eventReader) Read(p []byte) (int, error) {
	if r.rest == "" {
		return 0, io.EOF
	}
	n := len(r.rest)
	if i := strings.Index(r.rest, "\n\n"); i >= 0 {
		n = i + 2
	}
	n = copy(p, r.rest[:n])
	r.rest = r.rest[n:]
	return n, nil
}

// pacedTransport is bodyTransport with the events paced: the i-th can be
// read from i·every after the response on, as a server generating tokens
// sends them.
type pacedTransport struct {
	body  string
	every time.Duration
}

func (t pacedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := bodyTransport{t.body}.RoundTrip(r)
	if err == nil {
		res.Body = io.NopCloser(&pacedReader{eventReader: eventReader{rest: t.body}, every: t.every, start: time.Now()})
	}
	return res, err
}

// pacedReader is an eventReader whose i-th Read returns no sooner than
// start + i·every.
type pacedReader struct {
	eventReader
	every time.Duration
	start time.Time
	n     int
}

func (r *pacedReader) Read(p []byte) (int, error) {
	if d := time.Until(r.start.Add(time.Duration(r.n) * r.every)); d > 0 {
		time.Sleep(d)
	}
	r.n++
	return r.eventReader.Read(p)
}

// BenchmarkDecode is BenchmarkStream without the network: the same event
// stream comes from an in-process transport, one event per read, so the
// client's own work per chunk is all that is timed, hand-offs between
// goroutines included.
func BenchmarkDecode(b *testing.B) {
	benchStreams(b, []int{1024}, func(b *testing.B, body string) openai.Client {
		return openai.NewClient(option.WithBaseURL("http://in-process.invalid/v1/"), option.WithAPIKey("x"),
			option.WithMaxRetries(0), option.WithHTTPClient(&http.Client{Transport: bodyTransport{body}}))
	})
}

// BenchmarkDecodePacedApart is BenchmarkDecode with the events paced as in
// BenchmarkDecodePaced, bare and tokenpace as sub-benchmarks of their own,
// so that each can be profiled alone and the profiles compared
// (go tool pprof -diff_base).
func BenchmarkDecodePacedApart(b *testing.B) {
	benchStreams(b, []int{1024}, func(b *testing.B, body string) openai.Client {
		return openai.NewClient(option.WithBaseURL("http://in-process.invalid/v1/"), option.WithAPIKey("x"),
			option.WithMaxRetries(0), option.WithHTTPClient(&http.Client{Transport: pacedTransport{body, 200 * time.Microsecond}}))
	})
}

// BenchmarkDecodePaired is BenchmarkDecode with bare openai-go and
// tokenpace alternating, one 1,024-chunk stream each per iteration (the
// order swapped every iteration), so that both see the same load: on a
// shared machine the load moves between BenchmarkDecode's sub-benchmarks,
// seconds apart, by more than the difference it measures. It reports each
// variant's CPU per chunk (the process's, so a background reader and the
// collector count), tokenpace's ratio to bare over the whole run, and the
// median of the per-iteration ratios.
func BenchmarkDecodePaired(b *testing.B) {
	decodePaired(b, func(body string) http.RoundTripper { return bodyTransport{body} })
}

// BenchmarkDecodePaced is BenchmarkDecodePaired with the events arriving
// paced, one every 200 µs (5,000 tokens a second, faster than any one
// stream of a real server), as they do over a network: a caller that keeps
// up then waits for each chunk, in bare openai-go and in tokenpace alike.
// In BenchmarkDecodePaired every event is there before it is asked for.
func BenchmarkDecodePaced(b *testing.B) {
	decodePaired(b, func(body string) http.RoundTripper { return pacedTransport{body, 200 * time.Microsecond} })
}

// decodePaired alternates bare openai-go and tokenpace streams of 1,024
// chunks over the transport newTransport gives and reports their CPU per
// chunk and its ratio (see BenchmarkDecodePaired).
func decodePaired(b *testing.B, newTransport func(body string) http.RoundTripper) {
	const n = 1024
	oc, params := pairedClient(n, newTransport)
	c := tokenpace.NewClient(oc)
	pairedCPU(b, n, "tokenpace", bareRead(oc, params, false), func() error {
		s := c.NewStreaming(context.Background(), params)
		for s.Next() {
			_ = s.Current()
		}
		s.Close()
		return s.Err()
	})
}

// BenchmarkAccumulatorPaired is BenchmarkDecodePaired with bare openai-go
// feeding openai-go's ChatCompletionAccumulator in the place of tokenpace:
// the share of bare CPU that the accumulator every tokenpace Stream keeps
// (for Accumulated and Text) costs by itself.
func BenchmarkAccumulatorPaired(b *testing.B) {
	const n = 1024
	oc, params := pairedClient(n, func(body string) http.RoundTripper { return bodyTransport{body} })
	pairedCPU(b, n, "acc", bareRead(oc, params, false), bareRead(oc, params, true))
}

// pairedClient returns an openai-go client whose transport newTransport
// gives for a stream of n chunks, and the params that ask for it.
func pairedClient(n int, newTransport func(body string) http.RoundTripper) (openai.Client, openai.ChatCompletionNewParams) {
	oc := openai.NewClient(option.WithBaseURL("http://in-process.invalid/v1/"), option.WithAPIKey("x"),
		option.WithMaxRetries(0), option.WithHTTPClient(&http.Client{Transport: newTransport(sseStream(n))}))
	return oc, chat("gpt-4.1", n)
}

// bareRead returns a read of a stream through bare openai-go, feeding a
// ChatCompletionAccumulator when acc is set.
func bareRead(oc openai.Client, params openai.ChatCompletionNewParams, acc bool) func() error {
	return func() error {
		s := oc.Chat.Completions.NewStreaming(context.Background(), params)
		var a openai.ChatCompletionAccumulator
		for s.Next() {
			if acc {
				a.AddChunk(s.Current())
			}
		}
		return s.Err()
	}
}

// pairedCPU alternates the reads bare and other of streams of n chunks,
// the order swapped every iteration, and reports each one's CPU per chunk
// (the process's), other's ratio to bare over the whole run and the median
// of the per-iteration ratios.
func pairedCPU(b *testing.B, n int, name string, bare, other func() error) {
	timed := func(read func() error) time.Duration {
		cpu0 := cpuTime()
		if err := read(); err != nil {
			b.Fatal(err)
		}
		return cpuTime() - cpu0
	}
	var bareCPU, otherCPU time.Duration
	var ratios []float64
	for i := 0; b.Loop(); i++ {
		var db, do time.Duration
		if i%2 == 0 {
			db, do = timed(bare), timed(other)
		} else {
			do, db = timed(other), timed(bare)
		}
		bareCPU += db
		otherCPU += do
		if db > 0 {
			ratios = append(ratios, float64(do)/float64(db))
		}
	}
	chunks := float64(b.N * n)
	b.ReportMetric(float64(bareCPU.Nanoseconds())/chunks, "bare-cpu-ns/chunk")
	b.ReportMetric(float64(otherCPU.Nanoseconds())/chunks, name+"-cpu-ns/chunk")
	if bareCPU > 0 {
		b.ReportMetric(float64(otherCPU)/float64(bareCPU), "ratio")
	}
	if len(ratios) > 0 {
		slices.Sort(ratios)
		b.ReportMetric(ratios[len(ratios)/2], "median-ratio")
	}
}

// BenchmarkStream compares reading the same loopback event stream with
// bare openai-go, bare openai-go feeding a ChatCompletionAccumulator (which
// a tokenpace Stream always does), and tokenpace, in one run. ns/chunk and
// allocs/chunk are per content chunk, the request's fixed costs included;
// the difference between two chunk counts isolates the per-chunk cost.
func BenchmarkStream(b *testing.B) { benchStreams(b, []int{64, 1024}, sseServer) }

func benchStreams(b *testing.B, sizes []int, newClient func(*testing.B, string) openai.Client) {
	for _, n := range sizes {
		body := sseStream(n)
		params := chat("gpt-4.1", n)
		run := func(b *testing.B, read func() error) {
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				if err := read(); err != nil {
					b.Fatal(err)
				}
			}
			chunks := float64(b.N * n)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/chunks, "ns/chunk")
			b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/chunks, "cpu-ns/chunk")
		}
		b.Run(fmt.Sprintf("chunks=%d/bare", n), func(b *testing.B) {
			oc := newClient(b, body)
			run(b, func() error {
				s := oc.Chat.Completions.NewStreaming(context.Background(), params)
				for s.Next() {
					_ = s.Current()
				}
				return s.Err()
			})
		})
		b.Run(fmt.Sprintf("chunks=%d/bare+acc", n), func(b *testing.B) {
			oc := newClient(b, body)
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
			c := tokenpace.NewClient(newClient(b, body))
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
// returned by Next, for bare openai-go and for tokenpace in the same run:
// the difference is the TTFT the wrapper adds. The loopback variant goes
// through a local server; the in-process one through bodyTransport, one
// event per read, which leaves out the socket and the server.
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
	inProcess := func(_ *testing.B, body string) openai.Client {
		return openai.NewClient(option.WithBaseURL("http://in-process.invalid/v1/"), option.WithAPIKey("x"),
			option.WithMaxRetries(0), option.WithHTTPClient(&http.Client{Transport: bodyTransport{body}}))
	}
	for _, tr := range []struct {
		name      string
		newClient func(*testing.B, string) openai.Client
	}{{"loopback", sseServer}, {"in-process", inProcess}} {
		b.Run(tr.name+"/bare", func(b *testing.B) {
			oc := tr.newClient(b, body)
			run(b, func() (func(), error) {
				s := oc.Chat.Completions.NewStreaming(context.Background(), params)
				s.Next()
				return func() {
					for s.Next() {
					}
				}, s.Err()
			})
		})
		b.Run(tr.name+"/tokenpace", func(b *testing.B) {
			c := tokenpace.NewClient(tr.newClient(b, body))
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
}

// BenchmarkFirstChunkPaired is BenchmarkFirstChunk in process with the
// two variants alternating, one request each per iteration, so that both
// see the same load; it reports the median and the 10th percentile of each
// variant's time to its first chunk and of tokenpace's minus bare's. A
// request's leftovers (a reader finishing, a connection drained) then run
// while the other variant works, as between the requests of a real caller,
// and the percentiles leave out the waits of a descheduled thread, which
// dominate BenchmarkFirstChunk's mean on a shared machine.
func BenchmarkFirstChunkPaired(b *testing.B) {
	body := sseStream(1)
	params := chat("gpt-4.1", 1)
	oc := openai.NewClient(option.WithBaseURL("http://in-process.invalid/v1/"), option.WithAPIKey("x"),
		option.WithMaxRetries(0), option.WithHTTPClient(&http.Client{Transport: bodyTransport{body}}))
	c := tokenpace.NewClient(oc)
	var bare, tp []time.Duration
	for b.Loop() {
		start := time.Now()
		s := oc.Chat.Completions.NewStreaming(context.Background(), params)
		s.Next()
		bare = append(bare, time.Since(start))
		for s.Next() {
		}
		if err := s.Err(); err != nil {
			b.Fatal(err)
		}
		start = time.Now()
		ts := c.NewStreaming(context.Background(), params)
		ts.Next()
		tp = append(tp, time.Since(start))
		for ts.Next() {
		}
		ts.Close()
		if err := ts.Err(); err != nil {
			b.Fatal(err)
		}
	}
	slices.Sort(bare)
	slices.Sort(tp)
	at := func(d []time.Duration, q int) float64 { return float64(d[len(d)*q/100]) }
	for _, q := range []int{10, 50} {
		b.ReportMetric(at(bare, q), fmt.Sprintf("bare-p%d-ns", q))
		b.ReportMetric(at(tp, q), fmt.Sprintf("tokenpace-p%d-ns", q))
		b.ReportMetric(at(tp, q)-at(bare, q), fmt.Sprintf("added-p%d-ns", q))
	}
}

// BenchmarkIncludeUsage measures what asking for the usage chunk costs
// openai-go's NewStreaming (the request built and sent in process, up to
// the response headers), the three ways alternating one call each per
// iteration: not asked, asked in the params (as tokenpace does), asked with
// option.WithJSONSet, which sends the same bytes. It reports the median
// and the 10th percentile of each.
func BenchmarkIncludeUsage(b *testing.B) {
	oc := openai.NewClient(option.WithBaseURL("http://in-process.invalid/v1/"), option.WithAPIKey("x"),
		option.WithMaxRetries(0), option.WithHTTPClient(&http.Client{Transport: bodyTransport{sseStream(1)}}))
	params := chat("gpt-4.1", 1)
	asked := params
	asked.StreamOptions.IncludeUsage = openai.Bool(true)
	variants := []struct {
		name   string
		params openai.ChatCompletionNewParams
		opts   []option.RequestOption
	}{
		{"none", params, nil},
		{"params", asked, nil},
		{"jsonset", params, []option.RequestOption{option.WithJSONSet("stream_options.include_usage", true)}},
	}
	took := make([][]time.Duration, len(variants))
	for b.Loop() {
		for i, v := range variants {
			start := time.Now()
			s := oc.Chat.Completions.NewStreaming(context.Background(), v.params, v.opts...)
			took[i] = append(took[i], time.Since(start))
			if err := s.Err(); err != nil {
				b.Fatal(err)
			}
			_ = s.Close()
		}
	}
	for i, v := range variants {
		slices.Sort(took[i])
		b.ReportMetric(float64(took[i][len(took[i])/10]), v.name+"-p10-ns")
		b.ReportMetric(float64(took[i][len(took[i])/2]), v.name+"-p50-ns")
	}
}

// BenchmarkAccuracy streams from the simulator over real loopback HTTP,
// 1 or 64 streams at once, and reports how far measured TTFT and ITL are
// from the simulator's schedule: |measured − scheduled|, p50, p99 and max
// in microseconds over every stream and gap of the run. The bare variant
// stamps each chunk when openai-go's Next returns it, to a caller that
// does nothing else: the best a caller can do without tokenpace, measured
// in the same run.
func BenchmarkAccuracy(b *testing.B) {
	const (
		tokens = 50
		ttft   = 50 * time.Millisecond
		itl    = 10 * time.Millisecond
	)
	type measured struct {
		ttft time.Duration
		itl  []time.Duration
	}
	variants := []struct {
		name   string
		stream func(oc openai.Client, tp *tokenpace.Client) (measured, error)
	}{
		{"bare", func(oc openai.Client, _ *tokenpace.Client) (measured, error) {
			start := time.Now()
			s := oc.Chat.Completions.NewStreaming(context.Background(), chat("m", tokens))
			var m measured
			last := time.Time{}
			for s.Next() {
				now := time.Now()
				if len(s.Current().Choices) == 0 || s.Current().Choices[0].Delta.Content == "" {
					continue
				}
				if last.IsZero() {
					m.ttft = now.Sub(start)
				} else {
					m.itl = append(m.itl, now.Sub(last))
				}
				last = now
			}
			return m, s.Err()
		}},
		{"tokenpace", func(_ openai.Client, tp *tokenpace.Client) (measured, error) {
			s := tp.NewStreaming(context.Background(), chat("m", tokens))
			for s.Next() {
			}
			s.Close()
			tm := s.Timing()
			return measured{ttft: tm.TTFT(), itl: tm.ITL()}, s.Err()
		}},
	}
	abs := func(d time.Duration) time.Duration { return max(d, -d) }
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
	for _, streams := range []int{1, 64} {
		for _, v := range variants {
			b.Run(fmt.Sprintf("streams=%d/%s", streams, v.name), func(b *testing.B) {
				ts := simulate.StartLoopback(b, simulate.WithModel("m", &simulate.Fixed{TTFT: ttft, ITL: itl}))
				oc := openai.NewClient(option.WithBaseURL(ts.URL), option.WithHTTPClient(ts.Client),
					option.WithAPIKey("x"), option.WithMaxRetries(0))
				tp := tokenpace.NewClient(oc)
				var (
					mu              sync.Mutex
					ttftErr, itlErr []time.Duration
				)
				for b.Loop() {
					var wg sync.WaitGroup
					for range streams {
						wg.Go(func() {
							m, err := v.stream(oc, tp)
							if err != nil {
								b.Error(err)
								return
							}
							mu.Lock()
							defer mu.Unlock()
							ttftErr = append(ttftErr, abs(m.ttft-ttft))
							for _, g := range m.itl {
								itlErr = append(itlErr, abs(g-itl))
							}
						})
					}
					wg.Wait()
				}
				for _, m := range []struct {
					name string
					d    []time.Duration
				}{{"ttft", ttftErr}, {"itl", itlErr}} {
					st := metrics.DistOf(slices.Clone(m.d))
					b.ReportMetric(us(st.P50), m.name+"-err-p50-µs")
					b.ReportMetric(us(st.P99), m.name+"-err-p99-µs")
					b.ReportMetric(us(st.Max), m.name+"-err-max-µs")
				}
			})
		}
	}
}

// BenchmarkArrivalLag measures what the client adds to arrival times: a
// loopback server writes 50 chunks 10 ms apart to each of 64 concurrent
// streams and notes when each write returned; the lag is the client's
// timestamp minus that, p50, p99 and max in microseconds. The bare variant
// stamps when openai-go's Next returns the chunk, in the same run.
func BenchmarkArrivalLag(b *testing.B) {
	const (
		streams = 64
		tokens  = 50
		itl     = 10 * time.Millisecond
	)
	var (
		mu     sync.Mutex
		writes = map[string][]time.Time{}
		served = map[string]chan struct{}{} // closed when writes[id] is complete
	)
	expect := func(id string) <-chan struct{} {
		mu.Lock()
		defer mu.Unlock()
		served[id] = make(chan struct{})
		return served[id]
	}
	body := strings.Split(strings.TrimSuffix(sseStream(tokens), "\n\n"), "\n\n")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Stream")
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		start := time.Now()
		var at []time.Time
		for i, e := range body {
			time.Sleep(time.Until(start.Add(time.Duration(i) * itl)))
			if _, err := io.WriteString(w, e+"\n\n"); err != nil {
				return
			}
			_ = rc.Flush()
			at = append(at, time.Now())
		}
		mu.Lock()
		writes[id] = at
		close(served[id])
		mu.Unlock()
	}))
	defer srv.Close()
	oc := openai.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("x"), option.WithMaxRetries(0),
		option.WithHTTPClient(&http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: streams}}))
	tp := tokenpace.NewClient(oc)
	// Each variant returns the arrival time of every content chunk.
	variants := []struct {
		name   string
		stream func(id string) ([]time.Time, error)
	}{
		{"bare", func(id string) ([]time.Time, error) {
			s := oc.Chat.Completions.NewStreaming(context.Background(), chat("m", tokens), option.WithHeader("X-Stream", id))
			var at []time.Time
			for s.Next() {
				now := time.Now()
				if ch := s.Current().Choices; len(ch) > 0 && ch[0].Delta.Content != "" {
					at = append(at, now)
				}
			}
			return at, s.Err()
		}},
		{"tokenpace", func(id string) ([]time.Time, error) {
			s := tp.NewStreaming(context.Background(), chat("m", tokens), option.WithHeader("X-Stream", id))
			for s.Next() {
			}
			s.Close()
			return s.Timing().Chunks, s.Err()
		}},
	}
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			var lags []time.Duration
			var lagMu sync.Mutex
			n := 0
			for b.Loop() {
				var wg sync.WaitGroup
				for range streams {
					n++
					id := fmt.Sprint(v.name, n)
					done := expect(id)
					wg.Go(func() {
						at, err := v.stream(id)
						if err != nil {
							b.Error(err)
							return
						}
						<-done
						mu.Lock()
						w := writes[id]
						mu.Unlock()
						// Writes: role chunk, then one per content chunk.
						if len(w) < len(at)+1 {
							b.Errorf("%d writes for %d chunks", len(w), len(at))
							return
						}
						lagMu.Lock()
						for i, t := range at {
							lags = append(lags, t.Sub(w[i+1]))
						}
						lagMu.Unlock()
					})
				}
				wg.Wait()
			}
			st := metrics.DistOf(lags)
			b.ReportMetric(us(st.P50), "lag-p50-µs")
			b.ReportMetric(us(st.P99), "lag-p99-µs")
			b.ReportMetric(us(st.Max), "lag-max-µs")
		})
	}
}

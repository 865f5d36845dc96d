package metrics_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/metrics"
)

// timing builds the timeline of a streaming request: first token after ttft,
// then n-1 more tokens every gap.
func timing(target string, start time.Time, prompt int, ttft, gap time.Duration, n int) *tokenpace.Timing {
	t := &tokenpace.Timing{
		Target: target, Model: "llama-3.1-8b", Stream: true,
		Start: start, Sent: start, PromptTokens: prompt, OutputTokens: n, UsageReported: true,
	}
	at := start.Add(ttft)
	for range n {
		t.Chunks = append(t.Chunks, at)
		at = at.Add(gap)
	}
	t.End = at
	return t
}

func ExampleRecorder() {
	rec := metrics.NewRecorder(metrics.WithSLO(metrics.SLO{TTFT: 500 * time.Millisecond}))
	// In a program: pass rec.Hooks() to the client. Here, feed it timelines.
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 10 {
		prompt := 1000 * (i + 1)
		ttft := 100*time.Millisecond + time.Duration(prompt)*50*time.Microsecond // 50ms per 1k tokens
		rec.Record(context.Background(), timing("gpu-a", start.Add(time.Duration(i)*time.Second), prompt, ttft, 20*time.Millisecond, 51))
	}
	s := rec.SnapshotAt(start.Add(12 * time.Second))
	fmt.Printf("requests %d, good %d, %.1f tokens/s\n", s.Requests, s.Good, s.OutputThroughput)
	fmt.Printf("TTFT p50 %v, p99 %v; TPOT p50 %v\n", s.TTFT.P50, s.TTFT.P99, s.TPOT.P50)
	f := s.PromptFit
	fmt.Printf("TTFT ≈ %v + %v per 1k prompt tokens; 100k tokens: %v\n", f.Intercept.Round(time.Millisecond),
		f.PerKToken.Round(time.Millisecond), f.Predict(100_000).Round(time.Millisecond))
	// Output:
	// requests 10, good 8, 48.0 tokens/s
	// TTFT p50 350.207ms, p99 600ms; TPOT p50 20ms
	// TTFT ≈ 100ms + 50ms per 1k prompt tokens; 100k tokens: 5.1s
}

func ExampleSnapshot_WriteTable() {
	rec := metrics.NewRecorder()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 4 {
		rec.Record(context.Background(), timing("gpu-a", start.Add(time.Duration(i)*time.Second), 500, 200*time.Millisecond, 25*time.Millisecond, 41))
	}
	_ = rec.SnapshotAt(start.Add(5 * time.Second)).WriteTable(os.Stdout)
	// Output:
	// requests 4  completed 4  failed 0  good 4  over 4.225s
	// throughput 0.95 req/s  38.8 tok/s  goodput 0.95 req/s  38.8 tok/s
	// last 10s: 0.80 req/s  32.8 tok/s
	// tokens in 2000 (cached 0)  out 164
	//     ms  count    mean     p50     p90     p95     p99   p99.9     max
	//   TTFT      4   200.0   200.0   200.0   200.0   200.0   200.0   200.0
	//   TPOT      4    25.0    25.0    25.0    25.0    25.0    25.0    25.0
	//    ITL    160    25.0    25.0    25.0    25.0    25.0    25.0    25.0
	//    E2E      4  1225.0  1225.0  1225.0  1225.0  1225.0  1225.0  1225.0
}

func ExampleDetector() {
	det := metrics.NewDetector(metrics.DetectorConfig{})
	// 40 tokens, all delivered 3s after the request was sent: a proxy held
	// the stream back until the model had finished.
	t := timing("edge", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), 200, 3*time.Second, 0, 40)
	for _, d := range det.Observe(nil, t) {
		fmt.Println(d.Kind)
		fmt.Println(d.Message)
	}
	// Output:
	// buffering_proxy
	// all 40 chunks arrived within 0s after 3s of silence: the stream was buffered
}

func ExampleNew() {
	// With no provider options, metrics and spans go to the global
	// providers (otel.SetMeterProvider, otel.SetTracerProvider).
	obs, err := metrics.New(
		metrics.WithServer("", "https://llm.example.com/v1"),
		metrics.WithSLO(metrics.SLO{TTFT: time.Second}),
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	hooks := obs.Hooks() // pass these to the client
	// The circuit breakers report their state changes:
	obs.OTel.BreakerStateChanged("gpu-a", "closed", "open")

	hooks.Done(context.Background(), timing("gpu-a", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), 100, 300*time.Millisecond, 20*time.Millisecond, 10))
	s := obs.Recorder.Snapshot()
	fmt.Println(s.Requests, s.Good, s.TTFT.P50.Round(time.Millisecond))
	// Output:
	// 1 1 300ms
}

// LogHooks logs each finished request's figures, never its text.
func ExampleLogHooks() {
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{} // a fixed output for this example
			}
			return a
		},
	}))
	t := timing("small", time.Unix(0, 0), 900, 180*time.Millisecond, 20*time.Millisecond, 4)
	t.Headers, t.End, t.FinishReason = t.Sent.Add(150*time.Millisecond), t.Chunks[3], "stop"
	metrics.LogHooks(logger).Done(context.Background(), t)
	// Output:
	// level=INFO msg="tokenpace: request done" target=small model=llama-3.1-8b response_model="" stream=true queue=0s ttfb=150ms ttft=180ms itl_p50=20ms itl_p99=20ms itl_max=20ms tpot=20ms e2e=240ms prompt_tokens=900 cached_tokens=0 output_tokens=4 finish_reason=stop http_attempts=0
}

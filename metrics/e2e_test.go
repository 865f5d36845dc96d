package metrics_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/metrics"
	"github.com/tokenpace/tokenpace/simulate"
)

// simClient starts a simulator with sopts in memory (virtual time inside a
// synctest bubble) and returns a tokenpace client of it whose requests feed
// hooks.
func simClient(t *testing.T, hooks tokenpace.Hooks, sopts ...simulate.Option) (*tokenpace.Client, *simulate.TestServer) {
	t.Helper()
	ts := simulate.StartInMemory(t, sopts...)
	oc := openai.NewClient(option.WithBaseURL(ts.URL), option.WithHTTPClient(ts.Client),
		option.WithAPIKey("sk-test-secret"), option.WithMaxRetries(0))
	return tokenpace.NewClient(oc, tokenpace.WithHooks(hooks)), ts
}

// call streams one chat completion of at most n tokens to its end.
func call(t *testing.T, c *tokenpace.Client, model, prompt string, n int) *tokenpace.Timing {
	t.Helper()
	s := c.NewStreaming(context.Background(), openai.ChatCompletionNewParams{
		Model:     model,
		Messages:  []openai.ChatCompletionMessageParamUnion{openai.UserMessage(prompt)},
		MaxTokens: openai.Int(int64(n)),
	})
	for s.Next() {
	}
	if err := s.Err(); err != nil {
		t.Errorf("stream %s: Err() = %v", model, err)
	}
	_ = s.Close()
	return s.Timing()
}

// TestBufferingProxyDetected runs the same requests with and without the
// simulator's buffering proxy and checks that only the buffered ones are
// flagged, in the snapshot, the detection counter, the span and the
// handler.
func TestBufferingProxyDetected(t *testing.T) {
	for _, buffered := range []bool{false, true} {
		t.Run(fmt.Sprintf("buffering=%v", buffered), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				reader := sdkmetric.NewManualReader()
				mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
				spans := tracetest.NewSpanRecorder()
				tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
				defer func() { _ = mp.Shutdown(context.Background()); _ = tp.Shutdown(context.Background()) }()

				var mu sync.Mutex
				var seen []metrics.Detection
				obs, err := metrics.New(metrics.WithMeterProvider(mp), metrics.WithTracerProvider(tp),
					metrics.WithDetectionHandler(func(_ context.Context, d metrics.Detection) {
						mu.Lock()
						defer mu.Unlock()
						seen = append(seen, d)
					}))
				if err != nil {
					t.Fatal(err)
				}
				c, _ := simClient(t, obs.Hooks(),
					simulate.WithModel("m", &simulate.Fixed{TTFT: 300 * time.Millisecond, ITL: 20 * time.Millisecond}),
					simulate.WithBuffering(buffered))
				const n = 3
				for range n {
					tm := call(t, c, "m", "Tell me about latency.", 40)
					if len(tm.Chunks) < 10 {
						t.Fatalf("stream had %d chunks, want ≥ 10", len(tm.Chunks))
					}
				}

				want := 0
				if buffered {
					want = n
				}
				snap := obs.Recorder.Snapshot()
				if got := snap.Detections[string(metrics.KindBufferingProxy)]; got != int64(want) {
					t.Errorf("Snapshot().Detections[%s] = %d, want %d", metrics.KindBufferingProxy, got, want)
				}
				if len(seen) != want {
					t.Errorf("handler saw %d detections, want %d", len(seen), want)
				}
				for _, d := range seen {
					if d.Hint != metrics.BufferingHint {
						t.Errorf("detection hint = %q, want the X-Accel-Buffering hint", d.Hint)
					}
				}

				var rm metricdata.ResourceMetrics
				if err := reader.Collect(context.Background(), &rm); err != nil {
					t.Fatal(err)
				}
				var counted int64
				for _, sm := range rm.ScopeMetrics {
					for _, m := range sm.Metrics {
						if m.Name == "tokenpace.client.detections" {
							for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
								counted += dp.Value
							}
						}
					}
				}
				if counted != int64(want) {
					t.Errorf("tokenpace.client.detections = %d, want %d", counted, want)
				}
				events := 0
				for _, s := range spans.Ended() {
					for _, e := range s.Events() {
						if e.Name == metrics.EventDetection {
							events++
						}
					}
				}
				if events != want {
					t.Errorf("%d detection span events, want %d", events, want)
				}
			})
		})
	}
}

// TestTPSCollapseDetected runs requests one at a time on a simulated GPU to
// learn the baseline, then many at once. With a KV cache too small for
// them, it spills to host memory and the collapse of the decode rate must be
// flagged; with room to spare, batching alone must not be.
func TestTPSCollapseDetected(t *testing.T) {
	for _, tt := range []struct {
		name     string
		kvTokens int
		want     bool
	}{
		{"KV cache exhausted", 2048, true},
		{"KV cache ample", 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				obs, err := metrics.New()
				if err != nil {
					t.Fatal(err)
				}
				eng, err := simulate.NewEngine(simulate.Deployment{KVCapacityTokens: tt.kvTokens})
				if err != nil {
					t.Fatal(err)
				}
				c, ts := simClient(t, obs.Hooks(), simulate.WithModel("m", eng))

				for i := range 10 {
					call(t, c, "m", fmt.Sprintf("Warm-up request %d about latency.", i), 64)
				}
				if got := obs.Recorder.Snapshot().Detections; got != nil {
					t.Fatalf("after sequential requests: Detections = %v, want none", got)
				}

				var wg sync.WaitGroup
				for i := range 48 {
					wg.Go(func() { call(t, c, "m", fmt.Sprintf("Concurrent request %d about latency.", i), 256) })
				}
				wg.Wait()
				stats, _ := ts.Stats("m")
				snap := obs.Recorder.Snapshot()
				got := snap.Detections[string(metrics.KindTPSCollapse)] > 0
				if got != tt.want {
					t.Errorf("server stats %+v, TPOT %+v: Detections = %v, want %s %v",
						stats, snap.TPOT, snap.Detections, metrics.KindTPSCollapse, tt.want)
				}
				t.Logf("server %+v; TPOT p50 %v p99 %v; detections %v", stats, snap.TPOT.P50, snap.TPOT.P99, snap.Detections)
			})
		})
	}
}

// TestOTelSimulatorScenario streams from a simulator with a fixed timing on
// virtual time and checks the GenAI metrics and the span against the exact
// schedule: 200ms to the first token plus a 10ms round trip, then a token
// every 20ms.
func TestOTelSimulatorScenario(t *testing.T) {
	const (
		ttft = 200 * time.Millisecond
		rtt  = 10 * time.Millisecond
		itl  = 20 * time.Millisecond
		n    = 12
	)
	synctest.Test(t, func(t *testing.T) {
		reader := sdkmetric.NewManualReader()
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
		exp := tracetest.NewInMemoryExporter()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
		defer func() { _ = mp.Shutdown(context.Background()); _ = tp.Shutdown(context.Background()) }()
		obs, err := metrics.New(metrics.WithMeterProvider(mp), metrics.WithTracerProvider(tp),
			metrics.WithServer("", "http://simulator.invalid/v1/"))
		if err != nil {
			t.Fatal(err)
		}
		c, _ := simClient(t, obs.Hooks(),
			simulate.WithModel("m", &simulate.Fixed{TTFT: ttft, ITL: itl}), simulate.WithRTT(rtt))
		tm := call(t, c, "m", "Tell me about latency.", n)
		if !tm.UsageReported || tm.OutputTokens != n {
			t.Fatalf("Timing usage %v, %d tokens, want reported, %d", tm.UsageReported, tm.OutputTokens, n)
		}

		var rm metricdata.ResourceMetrics
		if err := reader.Collect(context.Background(), &rm); err != nil {
			t.Fatal(err)
		}
		byName := map[string]metricdata.Metrics{}
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				byName[m.Name] = m
			}
		}
		for _, want := range []struct {
			name  string
			count uint64
			sum   time.Duration
		}{
			{"gen_ai.client.operation.time_to_first_chunk", 1, ttft + rtt},
			{"gen_ai.client.operation.time_per_output_chunk", n - 1, (n - 1) * itl},
			{"gen_ai.client.operation.duration", 1, tm.End.Sub(tm.Start)},
		} {
			m, ok := byName[want.name]
			if !ok {
				t.Errorf("no metric %s", want.name)
				continue
			}
			dp := m.Data.(metricdata.Histogram[float64]).DataPoints[0]
			if m.Unit != "s" || dp.Count != want.count || !near(dp.Sum, want.sum.Seconds()) {
				t.Errorf("%s: unit %q count %d sum %v, want s, %d, %v", want.name, m.Unit, dp.Count, dp.Sum, want.count, want.sum.Seconds())
			}
			attrs := map[string]string{}
			for _, kv := range dp.Attributes.ToSlice() {
				attrs[string(kv.Key)] = kv.Value.String()
			}
			for k, v := range map[string]string{"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai",
				"gen_ai.request.model": "m", "gen_ai.response.model": "m",
				"server.address": "simulator.invalid", "server.port": "80"} {
				if attrs[k] != v {
					t.Errorf("%s attribute %s = %q, want %q", want.name, k, attrs[k], v)
				}
			}
		}
		usage := byName["gen_ai.client.token.usage"].Data.(metricdata.Histogram[int64])
		for _, dp := range usage.DataPoints {
			typ, _ := dp.Attributes.Value("gen_ai.token.type")
			want := int64(tm.PromptTokens)
			if typ.AsString() == "output" {
				want = n
			}
			if dp.Sum != want || want == 0 {
				t.Errorf("token usage %s = %d, want %d (non-zero)", typ.AsString(), dp.Sum, want)
			}
		}

		spans := exp.GetSpans()
		if len(spans) != 1 {
			t.Fatalf("%d spans, want 1", len(spans))
		}
		s := spans[0]
		if s.Name != "chat m" || !s.StartTime.Equal(tm.Start) || !s.EndTime.Equal(tm.End) {
			t.Errorf("span %q %v..%v, want \"chat m\" %v..%v", s.Name, s.StartTime, s.EndTime, tm.Start, tm.End)
		}
		for _, kv := range s.Attributes {
			if kv.Key == "gen_ai.response.time_to_first_chunk" && !near(kv.Value.AsFloat64(), (ttft+rtt).Seconds()) {
				t.Errorf("gen_ai.response.time_to_first_chunk = %v, want %v", kv.Value.AsFloat64(), (ttft + rtt).Seconds())
			}
		}
		if len(s.Events) == 0 || s.Events[0].Name != metrics.EventFirstToken || !s.Events[0].Time.Equal(tm.Chunks[0]) {
			t.Errorf("span events %+v, want %s at %v first", s.Events, metrics.EventFirstToken, tm.Chunks[0])
		}
		// The simulator's reply reaches the first sentence and line: one
		// span event and one histogram sample for each, in the Recorder too.
		if len(tm.Milestones) == 0 {
			t.Fatalf("Timing.Milestones empty, want the default milestones reached")
		}
		events := map[string]time.Time{}
		for _, e := range s.Events {
			if e.Name == metrics.EventMilestone {
				events[e.Attributes[0].Value.AsString()] = e.Time
			}
		}
		snap := obs.Recorder.Snapshot()
		for name, at := range tm.Milestones {
			if !events[name].Equal(at) {
				t.Errorf("milestone event %s at %v, want %v", name, events[name], at)
			}
			want, _ := tm.Milestone(name)
			if d := snap.Milestones[name]; d.Count != 1 || d.Max < want || float64(d.Max-want) > float64(want)*metrics.RelativeError+float64(time.Microsecond) {
				t.Errorf("Snapshot().Milestones[%s] = %+v, want one sample of %v", name, d, want)
			}
		}
		ms := byName["tokenpace.client.time_to_milestone"].Data.(metricdata.Histogram[float64])
		var samples uint64
		for _, dp := range ms.DataPoints {
			samples += dp.Count
		}
		if samples != uint64(len(tm.Milestones)) {
			t.Errorf("tokenpace.client.time_to_milestone has %d samples, want %d", samples, len(tm.Milestones))
		}
	})
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// TestRecorderCountsErrorEvents checks that a stream that a server ends
// with an error event (llama.cpp's parse error, say), which comes with
// status 200, is counted under error_event, not as an HTTP status 200,
// while an error status keeps its code.
func TestRecorderCountsErrorEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := metrics.NewRecorder(metrics.WithoutDetection())
		script := func(i uint64) simulate.Fault {
			if i == 0 {
				return simulate.Fault{Kind: simulate.FaultErrorEvent, After: 2}
			}
			return simulate.Fault{Kind: simulate.FaultServerError}
		}
		c, _ := simClient(t, rec.Hooks(), simulate.WithFaults(simulate.Faults{Script: script}),
			simulate.WithModel("m", &simulate.Fixed{TTFT: 100 * time.Millisecond, ITL: 20 * time.Millisecond}))
		for range 2 {
			s := c.NewStreaming(context.Background(), openai.ChatCompletionNewParams{
				Model:     "m",
				Messages:  []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
				MaxTokens: openai.Int(8),
			})
			for s.Next() {
			}
			_ = s.Close()
		}
		got := rec.Snapshot().Errors
		if got["error_event"] != 1 || got["500"] != 1 || got["200"] != 0 {
			t.Errorf("Snapshot().Errors = %v, want error_event 1 and 500 1", got)
		}
	})
}

// TestRecorderFlagsACutPrompt checks, end to end over loopback, that a
// long prompt a server answered from a part of (Ollama's usage after it
// cut a 9,009-token prompt to its 2,051-token context) is flagged as
// prompt_cut, and the same prompt counted whole is not.
func TestRecorderFlagsACutPrompt(t *testing.T) {
	prompt := strings.Repeat("We walked from Alfama down to the river, ate grilled sardines. ", 500)
	for _, tc := range []struct {
		counted int
		want    int64
	}{{2051, 1}, {8500, 0}} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"tiny\",\"system_fingerprint\":\"fp_ollama\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Sardines.\"},\"finish_reason\":\"stop\"}]}\n\n"+
				"data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"tiny\",\"choices\":[],\"usage\":{\"prompt_tokens\":%d,\"completion_tokens\":1,\"total_tokens\":%d}}\n\ndata: [DONE]\n\n", tc.counted, tc.counted+1)
		}))
		rec := metrics.NewRecorder()
		oc := openai.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("sk-test-secret"), option.WithMaxRetries(0))
		s := tokenpace.NewClient(oc, tokenpace.WithHooks(rec.Hooks())).NewStreaming(context.Background(), openai.ChatCompletionNewParams{
			Model:    "tiny",
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(prompt)},
		})
		for s.Next() {
		}
		_ = s.Close()
		srv.Close()
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v", err)
		}
		if got := rec.Snapshot().Detections[string(metrics.KindPromptCut)]; got != tc.want {
			t.Errorf("%d prompt tokens counted for %d bytes: prompt_cut detections %d, want %d", tc.counted, len(prompt), got, tc.want)
		}
	}
}

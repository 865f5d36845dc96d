package metrics

import (
	"context"
	"fmt"
	"testing"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/tokenpace/tokenpace"
)

// benchTiming is a clean stream of n tokens, one per chunk, 20ms apart.
func benchTiming(b *testing.B, n int) *tokenpace.Timing {
	b.Helper()
	tm := &tokenpace.Timing{
		Target: "gpu-a", Model: "llama-3.1-8b", ResponseModel: "llama-3.1-8b", Stream: true,
		Start: epoch, Sent: epoch, PromptTokens: 1000, OutputTokens: n, UsageReported: true,
		FinishReason: "stop", HTTP: []tokenpace.HTTPAttempt{{Status: 200}},
	}
	at := epoch.Add(200 * time.Millisecond)
	for range n {
		tm.Chunks = append(tm.Chunks, at)
		at = at.Add(20 * time.Millisecond)
	}
	tm.End = at
	return tm
}

// BenchmarkRecord measures the cost of one finished request of n chunks
// for each observer set; the cost per chunk is the slope over n.
func BenchmarkRecord(b *testing.B) {
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	tp := sdktrace.NewTracerProvider() // spans are recorded, then dropped
	b.Cleanup(func() {
		_ = mp.Shutdown(context.Background())
		_ = tp.Shutdown(context.Background())
	})
	setups := []struct {
		name string
		make func() func(context.Context, *tokenpace.Timing)
	}{
		{"recorder", func() func(context.Context, *tokenpace.Timing) {
			return NewRecorder().Record
		}},
		{"otel-metrics", func() func(context.Context, *tokenpace.Timing) {
			o, _ := NewOTel(WithMeterProvider(mp), WithTracerProvider(noop.NewTracerProvider()))
			return o.Record
		}},
		{"all", func() func(context.Context, *tokenpace.Timing) {
			o, _ := New(WithMeterProvider(mp), WithTracerProvider(tp))
			return o.Record
		}},
	}
	for _, s := range setups {
		for _, n := range []int{1, 100, 1000} {
			b.Run(fmt.Sprintf("%s/chunks=%d", s.name, n), func(b *testing.B) {
				record := s.make()
				tm := benchTiming(b, n)
				ctx := context.Background()
				record(ctx, tm) // create the series and attribute sets outside the measurement
				b.ReportAllocs()
				for b.Loop() {
					record(ctx, tm)
				}
			})
		}
	}
}

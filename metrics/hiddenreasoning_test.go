package metrics

import (
	"context"
	"testing"
	"time"

	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/tokenpace/tokenpace"
)

// TestHiddenReasoningMakesNoTPOT: a reasoning model that spent 40 tokens
// on reasoning the stream never showed, then streamed one visible token,
// has no time per output token (Timing.TPOT is 0: one token after the
// first is none); neither the Recorder nor the OTel metrics record a 0
// for it. With two visible tokens 30 ms apart, both record 30 ms.
func TestHiddenReasoningMakesNoTPOT(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	timing := func(visible int) *tokenpace.Timing {
		tm := &tokenpace.Timing{Stream: true, Model: "m", Start: t0, Sent: t0,
			OutputTokens: 40 + visible, ReasoningTokens: 40, UsageReported: true}
		for i := range visible {
			tm.Chunks = append(tm.Chunks, ms(500+30*i))
		}
		tm.OutputChunks, tm.LastChunk, tm.End = visible, tm.Chunks[visible-1], tm.Chunks[visible-1]
		return tm
	}
	for _, tt := range []struct {
		visible int
		want    int64 // TPOT samples
	}{{1, 0}, {2, 1}} {
		tm := timing(tt.visible)
		rec := NewRecorder()
		rec.Record(context.Background(), tm)
		s := rec.Snapshot()
		if s.TPOT.Count != tt.want || tt.want == 1 && (s.TPOT.Max-30*time.Millisecond).Abs() > time.Millisecond {
			t.Errorf("%d visible: Recorder TPOT %d samples (max %v), want %d of 30ms (within the histogram's precision)", tt.visible, s.TPOT.Count, s.TPOT.Max, tt.want)
		}
		rig := newRig(t)
		rig.o.Record(context.Background(), tm)
		var n uint64
		if m, ok := rig.collect(t)["tokenpace.client.time_per_output_token"]; ok {
			for _, dp := range hist(t, map[string]metricdata.Metrics{"x": m}, "x", "s") {
				n += dp.Count
			}
		}
		if n != uint64(tt.want) {
			t.Errorf("%d visible: OTel time_per_output_token %d samples, want %d", tt.visible, n, tt.want)
		}
	}
}

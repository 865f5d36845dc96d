package metrics

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/tokenpace/tokenpace"
)

// TestMalformedTimings feeds every observer timelines no client would
// produce; none may panic, and the Recorder still counts them.
func TestMalformedTimings(t *testing.T) {
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	tp := sdktrace.NewTracerProvider()
	defer func() { _ = mp.Shutdown(context.Background()); _ = tp.Shutdown(context.Background()) }()
	obs, err := New(WithMeterProvider(mp), WithTracerProvider(tp), WithInferenceNames())
	if err != nil {
		t.Fatal(err)
	}
	backwards := stream(t, "a", "m", epoch, 0, 100*time.Millisecond, 10*time.Millisecond, 10)
	backwards.Chunks[3], backwards.Chunks[7] = backwards.Chunks[7], backwards.Chunks[3]
	backwards.End = epoch.Add(-time.Hour)
	tests := []struct {
		name string
		tm   *tokenpace.Timing
	}{
		{"zero", &tokenpace.Timing{}},
		{"zero chunk times", &tokenpace.Timing{Stream: true, Chunks: make([]time.Time, 5), OutputTokens: 5}},
		{"chunks out of order, end before start", backwards},
		{"negative token counts", &tokenpace.Timing{Start: epoch, End: epoch.Add(time.Second), OutputTokens: -3, PromptTokens: -1, CachedTokens: -2, UsageReported: true}},
		{"year 3000", &tokenpace.Timing{Start: epoch, End: time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC), Chunks: []time.Time{time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)}}},
		{"attempts without times", &tokenpace.Timing{Attempts: []tokenpace.Attempt{{}, {Outcome: tokenpace.OutcomeHedgeLost}, {Outcome: tokenpace.OutcomeWon}}, Breaches: []tokenpace.BudgetError{{}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := obs.Recorder.Snapshot().Requests
			obs.Record(context.Background(), tt.tm)
			s := obs.Recorder.Snapshot()
			if s.Requests != before+1 {
				t.Errorf("Requests = %d, want %d", s.Requests, before+1)
			}
			_ = s.String()
		})
	}
}

// failingMeter fails to create any instrument, returning nil.
type failingMeter struct{ noop.Meter }

var errNoInstrument = errors.New("no instruments here")

func (failingMeter) Float64Histogram(string, ...metric.Float64HistogramOption) (metric.Float64Histogram, error) {
	return nil, errNoInstrument
}
func (failingMeter) Int64Histogram(string, ...metric.Int64HistogramOption) (metric.Int64Histogram, error) {
	return nil, errNoInstrument
}
func (failingMeter) Int64Counter(string, ...metric.Int64CounterOption) (metric.Int64Counter, error) {
	return nil, errNoInstrument
}
func (failingMeter) Int64ObservableGauge(string, ...metric.Int64ObservableGaugeOption) (metric.Int64ObservableGauge, error) {
	return nil, errNoInstrument
}

type failingProvider struct{ noop.MeterProvider }

func (failingProvider) Meter(string, ...metric.MeterOption) metric.Meter { return failingMeter{} }

func TestOTelFailingMeterProvider(t *testing.T) {
	o, err := NewOTel(WithMeterProvider(failingProvider{}), WithInferenceNames())
	if !errors.Is(err, errNoInstrument) {
		t.Errorf("NewOTel(failing provider) error = %v, want %v", err, errNoInstrument)
	}
	tm := stream(t, "a", "m", epoch, time.Millisecond, 100*time.Millisecond, 10*time.Millisecond, 5)
	tm.Breaches = []tokenpace.BudgetError{{Target: "a", Phase: tokenpace.PhaseGap}}
	tm.Attempts = []tokenpace.Attempt{{Target: "a"}, {Target: "b"}}
	o.Record(context.Background(), tm) // must not panic
	o.BreakerStateChanged("a", "closed", "open")
	if err := o.Shutdown(); err != nil {
		t.Errorf("Shutdown() = %v, want nil", err)
	}
}

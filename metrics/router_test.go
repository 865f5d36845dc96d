package metrics_test

import (
	"context"
	"maps"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/metrics"
	"github.com/tokenpace/tokenpace/simulate"
)

// TestRouterAttemptKinds checks, through a real Router, that a stream
// carried on by a continuation is counted as one, not as a fallback.
func TestRouterAttemptKinds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reader := sdkmetric.NewManualReader()
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
		defer func() { _ = mp.Shutdown(context.Background()) }()
		obs, err := metrics.New(metrics.WithMeterProvider(mp))
		if err != nil {
			t.Fatal(err)
		}
		c, _ := simClient(t, obs.Hooks(),
			simulate.WithModel("big", &simulate.Fixed{TTFT: 100 * time.Millisecond, ITL: 20 * time.Millisecond}),
			simulate.WithModel("small", &simulate.Fixed{TTFT: 50 * time.Millisecond, ITL: 10 * time.Millisecond}))
		big := tokenpace.Route{Target: tokenpace.Target{Name: "big", Model: "big",
			Options: []option.RequestOption{option.WithHeader(simulate.FaultHeader, "stall;for=5s;after=10")}}}
		small := tokenpace.Route{Target: tokenpace.Target{Name: "small", Model: "small"}}
		r, err := tokenpace.NewRouter(c, tokenpace.Policy{Budget: tokenpace.Budget{Gap: 100 * time.Millisecond}, Continue: true}, big, small)
		if err != nil {
			t.Fatalf("NewRouter() error = %v", err)
		}
		s := r.NewStreaming(context.Background(), openai.ChatCompletionNewParams{
			Model:     "big",
			Messages:  []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Tell me about latency.")},
			MaxTokens: openai.Int(30),
		})
		for s.Next() {
		}
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v, want nil", err)
		}
		_ = s.Close()

		var rm metricdata.ResourceMetrics
		if err := reader.Collect(context.Background(), &rm); err != nil {
			t.Fatal(err)
		}
		got := map[string]int64{}
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				if m.Name != "tokenpace.client.attempts" {
					continue
				}
				for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
					v, _ := dp.Attributes.Value(attribute.Key("tokenpace.attempt.kind"))
					got[v.AsString()] += dp.Value
				}
			}
		}
		if want := map[string]int64{"first": 1, "continuation": 1}; !maps.Equal(got, want) {
			t.Errorf("tokenpace.client.attempts by kind = %v, want %v", got, want)
		}
	})
}

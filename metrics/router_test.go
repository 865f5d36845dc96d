package metrics_test

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

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
		big := tokenpace.Route{Name: "big", Model: "big",
			Options: []option.RequestOption{option.WithHeader(simulate.FaultHeader, "stall;for=5s;after=10")}}
		small := tokenpace.Route{Name: "small", Model: "small"}
		r, err := tokenpace.NewRouter(c, tokenpace.Policy{Budget: tokenpace.Budget{Gap: 100 * time.Millisecond}, Continue: true}, big, small)
		if err != nil {
			t.Fatalf("NewRouter() error = %v", err)
		}
		streamToEnd(t, r, 30)

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

// TestRouterCallerFigures: a hedged call whose caller waited 150 ms for
// its first token (hedge after 100 ms, the small route's TTFT 50 ms) is
// recorded with TTFT 150 ms everywhere, so it is not good under a 100 ms
// TTFT SLO.
func TestRouterCallerFigures(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reader := sdkmetric.NewManualReader()
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
		spans := tracetest.NewSpanRecorder()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
		defer func() {
			_ = mp.Shutdown(context.Background())
			_ = tp.Shutdown(context.Background())
		}()
		obs, err := metrics.New(metrics.WithMeterProvider(mp), metrics.WithTracerProvider(tp),
			metrics.WithSLO(metrics.SLO{TTFT: 100 * time.Millisecond}), metrics.WithoutDetection())
		if err != nil {
			t.Fatal(err)
		}
		r := bigSmallRouter(t, obs.Hooks(), tokenpace.Policy{Hedge: tokenpace.Hedge{After: 100 * time.Millisecond}})
		streamToEnd(t, r, 5)

		const want = 150 * time.Millisecond
		snap := obs.Recorder.Snapshot()
		if d := snap.TTFT.Max - want; snap.TTFT.Count != 1 || d < -want/100 || d > want/100 {
			t.Errorf("Recorder TTFT = %+v, want one sample of %v (±1%%)", snap.TTFT, want)
		}
		if snap.Requests != 1 || snap.Good != 0 {
			t.Errorf("Recorder requests = %d, good = %d, want 1, 0 (TTFT %v over the 100ms SLO)", snap.Requests, snap.Good, want)
		}
		var rm metricdata.ResourceMetrics
		if err := reader.Collect(context.Background(), &rm); err != nil {
			t.Fatal(err)
		}
		var pts []metricdata.HistogramDataPoint[float64]
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				if m.Name == "gen_ai.client.operation.time_to_first_chunk" {
					pts = m.Data.(metricdata.Histogram[float64]).DataPoints
				}
			}
		}
		if len(pts) != 1 || pts[0].Count != 1 || !near(pts[0].Sum, want.Seconds()) {
			t.Errorf("time_to_first_chunk = %+v, want one sample of %v", pts, want.Seconds())
		}
		ended := spans.Ended()
		if len(ended) == 0 {
			t.Fatal("no span ended")
		}
		found := false
		call := ended[len(ended)-1] // the attempts' spans end first
		for _, kv := range call.Attributes() {
			if kv.Key == "gen_ai.response.time_to_first_chunk" {
				found = true
				if !near(kv.Value.AsFloat64(), want.Seconds()) {
					t.Errorf("span gen_ai.response.time_to_first_chunk = %v, want %v", kv.Value.AsFloat64(), want.Seconds())
				}
			}
		}
		if !found {
			t.Error("span has no gen_ai.response.time_to_first_chunk")
		}
	})
}

// streamToEnd makes a Router call to "big" of at most n tokens and reads
// it to its end, failing t unless it ends cleanly.
func streamToEnd(t *testing.T, r *tokenpace.Router, n int) {
	t.Helper()
	s := r.NewStreaming(context.Background(), openai.ChatCompletionNewParams{
		Model:     "big",
		Messages:  []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Tell me about latency.")},
		MaxTokens: openai.Int(int64(n)),
	})
	for s.Next() {
	}
	if err := s.Err(); err != nil {
		t.Fatalf("Err() = %v, want nil", err)
	}
	_ = s.Close()
}

// TestRouterRecoveredBreachIsGood: goodput is the caller's view. The call
// of runRecoveredBreach waited 150 ms for its first token and ended
// cleanly, so it is good under a 200 ms TTFT SLO, in the Recorder and in
// tokenpace.client.requests, and not under a 120 ms one; either way the
// Recorder counts the breach and its table shows it.
func TestRouterRecoveredBreachIsGood(t *testing.T) {
	for _, tt := range []struct {
		slo  time.Duration
		good bool
	}{
		{200 * time.Millisecond, true},
		{120 * time.Millisecond, false},
	} {
		t.Run(tt.slo.String(), func(t *testing.T) {
			snap, rm := runRecoveredBreach(t, metrics.SLO{TTFT: tt.slo})
			var good int64
			if tt.good {
				good = 1
			}
			if snap.Requests != 1 || snap.Good != good {
				t.Errorf("Recorder requests, good = %d, %d, want 1, %d", snap.Requests, snap.Good, good)
			}
			if want := map[string]int64{"ttft": 1}; !maps.Equal(snap.Breaches, want) {
				t.Errorf("Recorder breaches = %v, want %v", snap.Breaches, want)
			}
			if table := snap.String(); !strings.Contains(table, "\nbreaches: ttft=1\n") {
				t.Errorf("Snapshot table = %q, want a line %q", table, "breaches: ttft=1")
			}
			requests := map[string]int64{}
			for _, dp := range sums(rm, "tokenpace.client.requests") {
				v, _ := dp.Attributes.Value(attribute.Key("tokenpace.request.good"))
				requests[v.String()] += dp.Value
			}
			if want := map[string]int64{fmt.Sprint(tt.good): 1}; !maps.Equal(requests, want) {
				t.Errorf("tokenpace.client.requests by tokenpace.request.good = %v, want %v", requests, want)
			}
		})
	}
}

// TestRouterBreachModel: a breach is counted against the attempt that
// breached, target big and model big, though the call's are small: in
// tokenpace.client.budget.breaches and in the Recorder's series, whose
// table shows it in the row of big.
func TestRouterBreachModel(t *testing.T) {
	snap, rm := runRecoveredBreach(t, metrics.SLO{})
	type row struct {
		target, model string
		requests      int64
		breaches      map[string]int64
	}
	var rows []row
	for _, p := range snap.Targets {
		rows = append(rows, row{p.Target, p.Model, p.Requests, p.Breaches})
	}
	wantRows := []row{{"big", "big", 0, map[string]int64{"ttft": 1}}, {"small", "small", 1, nil}}
	if !slices.EqualFunc(rows, wantRows, func(a, b row) bool {
		return a.target == b.target && a.model == b.model && a.requests == b.requests && maps.Equal(a.breaches, b.breaches)
	}) {
		t.Errorf("Recorder series = %+v, want %+v", rows, wantRows)
	}
	if want := map[string]int64{"ttft": 1}; !maps.Equal(snap.Breaches, want) {
		t.Errorf("Recorder breaches = %v, want %v", snap.Breaches, want)
	}
	table := snap.String()
	if !regexp.MustCompile(`(?m)^big +big +0 +0 +0 +1 `).MatchString(table) {
		t.Errorf("Snapshot table = %q, want a row: big big, 0 requests, 0 failed, 0 good, 1 breach", table)
	}
	var got []map[string]string
	for _, dp := range sums(rm, "tokenpace.client.budget.breaches") {
		kv := map[string]string{"value": fmt.Sprint(dp.Value)}
		for _, a := range dp.Attributes.ToSlice() {
			kv[string(a.Key)] = a.Value.String()
		}
		got = append(got, kv)
	}
	want := map[string]string{"value": "1", "tokenpace.target": "big", "gen_ai.request.model": "big",
		"tokenpace.budget.phase": "ttft", "tokenpace.client.starved": "false"}
	if len(got) != 1 || !maps.Equal(got[0], want) {
		t.Errorf("tokenpace.client.budget.breaches = %v, want [%v]", got, want)
	}
}

// runRecoveredBreach makes one Router call, observed under slo, whose big
// route breaches its 100 ms TTFT budget and whose small route answers 50 ms
// later, so that the caller waits 150 ms for its first token and the call
// ends cleanly. It returns the Recorder's snapshot and the metrics.
func runRecoveredBreach(t *testing.T, slo metrics.SLO) (metrics.Snapshot, metricdata.ResourceMetrics) {
	t.Helper()
	var snap metrics.Snapshot
	var rm metricdata.ResourceMetrics
	synctest.Test(t, func(t *testing.T) {
		reader := sdkmetric.NewManualReader()
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
		defer func() { _ = mp.Shutdown(context.Background()) }()
		obs, err := metrics.New(metrics.WithMeterProvider(mp), metrics.WithSLO(slo), metrics.WithoutDetection())
		if err != nil {
			t.Fatal(err)
		}
		r := bigSmallRouter(t, obs.Hooks(), tokenpace.Policy{Budget: tokenpace.Budget{TTFT: 100 * time.Millisecond}})
		streamToEnd(t, r, 5)
		snap = obs.Recorder.Snapshot()
		if err := reader.Collect(context.Background(), &rm); err != nil {
			t.Fatal(err)
		}
	})
	return snap, rm
}

// sums returns the data points of the int64 sum name in rm.
func sums(rm metricdata.ResourceMetrics, name string) []metricdata.DataPoint[int64] {
	var pts []metricdata.DataPoint[int64]
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == name {
				pts = append(pts, m.Data.(metricdata.Sum[int64]).DataPoints...)
			}
		}
	}
	return pts
}

// bigSmallRouter returns a Router with policy p over routes "big" (first
// token after 2 s) and "small" (50 ms, then 10 ms a token) of one
// in-memory simulator, reporting to hooks.
func bigSmallRouter(t *testing.T, hooks tokenpace.Hooks, p tokenpace.Policy) *tokenpace.Router {
	t.Helper()
	c, _ := simClient(t, hooks,
		simulate.WithModel("big", &simulate.Fixed{TTFT: 2 * time.Second}),
		simulate.WithModel("small", &simulate.Fixed{TTFT: 50 * time.Millisecond, ITL: 10 * time.Millisecond}))
	r, err := tokenpace.NewRouter(c, p,
		tokenpace.Route{Name: "big", Model: "big"},
		tokenpace.Route{Name: "small", Model: "small"})
	if err != nil {
		t.Fatalf("NewRouter() error = %v", err)
	}
	return r
}

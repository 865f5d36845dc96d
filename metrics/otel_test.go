package metrics

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/tokenpace/tokenpace"
)

// otelRig wires an OTel observer to a manual metric reader and a span
// recorder.
type otelRig struct {
	o      *OTel
	reader *sdkmetric.ManualReader
	spans  *tracetest.SpanRecorder
}

func newRig(t *testing.T, opts ...Option) *otelRig {
	t.Helper()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	t.Cleanup(func() {
		_ = mp.Shutdown(context.Background())
		_ = tp.Shutdown(context.Background())
	})
	o, err := NewOTel(append([]Option{WithMeterProvider(mp), WithTracerProvider(tp),
		WithServer("", "http://llm.internal:8000/v1")}, opts...)...)
	if err != nil {
		t.Fatalf("NewOTel error: %v", err)
	}
	return &otelRig{o: o, reader: reader, spans: spans}
}

// collect returns the metrics by name.
func (r *otelRig) collect(t *testing.T) map[string]metricdata.Metrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatalf("Collect error: %v", err)
	}
	got := map[string]metricdata.Metrics{}
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name != ScopeName || sm.Scope.Version != Version {
			t.Errorf("scope = %s %s, want %s %s", sm.Scope.Name, sm.Scope.Version, ScopeName, Version)
		}
		for _, m := range sm.Metrics {
			got[m.Name] = m
		}
	}
	return got
}

// hist returns the data points of the float histogram name.
func hist(t *testing.T, ms map[string]metricdata.Metrics, name, unit string) []metricdata.HistogramDataPoint[float64] {
	t.Helper()
	m, ok := ms[name]
	if !ok {
		t.Fatalf("no metric %q among %v", name, slices.Sorted(mapKeys(ms)))
	}
	if m.Unit != unit {
		t.Errorf("%s unit = %q, want %q", name, m.Unit, unit)
	}
	h, ok := m.Data.(metricdata.Histogram[float64])
	if !ok {
		t.Fatalf("%s data = %T, want float64 histogram", name, m.Data)
	}
	return h.DataPoints
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func attrsOf(s attribute.Set) map[string]string {
	m := map[string]string{}
	for _, kv := range s.ToSlice() {
		m[string(kv.Key)] = kv.Value.String()
	}
	return m
}

// The bucket boundaries the GenAI semantic conventions advise (v1.41.0,
// docs/gen-ai/gen-ai-metrics.md): for the client's duration, time to first
// chunk and time per output chunk; and for the server's time per output
// token, which tokenpace's own per-token histogram follows.
var (
	specDurations = []float64{0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92}
	specPerToken  = []float64{0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5}
)

func TestOTelGenAIMetrics(t *testing.T) {
	rig := newRig(t)
	// 200ms queue, 300ms TTFT, 5 tokens 20ms apart.
	tm := stream(t, "primary", "llama-3-8b", epoch, 200*time.Millisecond, 300*time.Millisecond, 20*time.Millisecond, 5)
	tm.PromptTokens, tm.CachedTokens = 1200, 1000
	rig.o.Record(context.Background(), tm)
	ms := rig.collect(t)

	wantAttrs := map[string]string{
		"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai",
		"gen_ai.request.model": "llama-3-8b", "gen_ai.response.model": "llama-3-8b",
		"server.address": "llm.internal", "server.port": "8000", "tokenpace.target": "primary",
	}
	tests := []struct {
		name    string
		count   uint64
		sum     float64
		buckets []float64
	}{
		{"gen_ai.client.operation.duration", 1, 0.581, specDurations}, // 200 + 300 + 4·20 + 1 ms
		{"gen_ai.client.operation.time_to_first_chunk", 1, 0.3, specDurations},
		{"gen_ai.client.operation.time_per_output_chunk", 4, 0.08, specDurations},
		{"tokenpace.client.time_per_output_token", 1, 0.02, specPerToken},
		{"tokenpace.client.queue.duration", 1, 0.2, specDurations},
	}
	for _, tt := range tests {
		dps := hist(t, ms, tt.name, "s")
		if len(dps) != 1 {
			t.Errorf("%s: %d data points, want 1", tt.name, len(dps))
			continue
		}
		dp := dps[0]
		if dp.Count != tt.count || !approx(dp.Sum, tt.sum) {
			t.Errorf("%s count, sum = %d, %v, want %d, %v", tt.name, dp.Count, dp.Sum, tt.count, tt.sum)
		}
		if !slices.Equal(dp.Bounds, tt.buckets) {
			t.Errorf("%s bounds = %v, want %v", tt.name, dp.Bounds, tt.buckets)
		}
		if strings := attrsOf(dp.Attributes); tt.name[:6] == "gen_ai" {
			for k, v := range wantAttrs {
				if strings[k] != v {
					t.Errorf("%s attribute %s = %q, want %q", tt.name, k, strings[k], v)
				}
			}
			if _, ok := strings["error.type"]; ok {
				t.Errorf("%s has error.type on a clean request", tt.name)
			}
		}
	}

	usage, ok := ms["gen_ai.client.token.usage"].Data.(metricdata.Histogram[int64])
	if !ok || ms["gen_ai.client.token.usage"].Unit != "{token}" {
		t.Fatalf("gen_ai.client.token.usage = %+v, want an int64 histogram in {token}", ms["gen_ai.client.token.usage"])
	}
	byType := map[string]int64{}
	for _, dp := range usage.DataPoints {
		byType[attrsOf(dp.Attributes)["gen_ai.token.type"]] = dp.Sum
		if !slices.Equal(dp.Bounds, tokenBuckets) {
			t.Errorf("token usage bounds = %v, want %v", dp.Bounds, tokenBuckets)
		}
	}
	if byType["input"] != 1200 || byType["output"] != 5 {
		t.Errorf("token usage by type = %v, want input 1200, output 5", byType)
	}
	if c := ms["tokenpace.client.token.cached"].Data.(metricdata.Histogram[int64]); c.DataPoints[0].Sum != 1000 {
		t.Errorf("cached tokens = %d, want 1000", c.DataPoints[0].Sum)
	}
	req := ms["tokenpace.client.requests"].Data.(metricdata.Sum[int64])
	if len(req.DataPoints) != 1 || req.DataPoints[0].Value != 1 || attrsOf(req.DataPoints[0].Attributes)["tokenpace.request.good"] != "true" {
		t.Errorf("tokenpace.client.requests = %+v, want one good request", req.DataPoints)
	}
	if _, ok := ms["gen_ai.client.inference.duration"]; ok {
		t.Errorf("gen_ai.client.inference.duration emitted without WithInferenceNames")
	}
}

func approx(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func TestOTelErrorAndPolicyMetrics(t *testing.T) {
	rig := newRig(t)
	tm := stream(t, "primary", "m", epoch, 0, 300*time.Millisecond, 20*time.Millisecond, 3)
	tm.Err = &openai.Error{StatusCode: 429}
	tm.Breaches = []tokenpace.BudgetError{{Target: "primary", Phase: tokenpace.PhaseTTFT, Limit: 200 * time.Millisecond, Observed: 300 * time.Millisecond}}
	tm.Attempts = []tokenpace.Attempt{
		{Target: "primary", Model: "m", Start: epoch, End: epoch.Add(200 * time.Millisecond), Outcome: tokenpace.OutcomeBreached},
		{Target: "backup", Model: "m", Start: epoch.Add(200 * time.Millisecond), End: epoch.Add(400 * time.Millisecond), Outcome: tokenpace.OutcomeFailed, Err: tm.Err},
	}
	rig.o.Record(context.Background(), tm)
	ms := rig.collect(t)

	dur := hist(t, ms, "gen_ai.client.operation.duration", "s")
	if got := attrsOf(dur[0].Attributes)["error.type"]; got != "429" {
		t.Errorf("duration error.type = %q, want 429", got)
	}
	// The conventions define error.type on the duration only: not on token
	// usage (nor on the per-chunk times, recorded with no error).
	for _, dp := range ms["gen_ai.client.token.usage"].Data.(metricdata.Histogram[int64]).DataPoints {
		if got, ok := attrsOf(dp.Attributes)["error.type"]; ok {
			t.Errorf("token usage has error.type %q", got)
		}
	}
	counts := func(name string, key attribute.Key) map[string]int64 {
		m := map[string]int64{}
		for _, dp := range ms[name].Data.(metricdata.Sum[int64]).DataPoints {
			v, _ := dp.Attributes.Value(key)
			m[v.String()] += dp.Value
		}
		return m
	}
	if got := counts("tokenpace.client.budget.breaches", attrPhase); got["ttft"] != 1 || len(got) != 1 {
		t.Errorf("breaches by phase = %v, want ttft 1", got)
	}
	if got := counts("tokenpace.client.attempts", attrOutcome); got["breached"] != 1 || got["failed"] != 1 {
		t.Errorf("attempts by outcome = %v, want breached 1, failed 1", got)
	}
	if got := counts("tokenpace.client.attempts", attrAttemptKind); got["first"] != 1 || got["fallback"] != 1 {
		t.Errorf("attempts by kind = %v, want first 1, fallback 1", got)
	}
	if got := counts("tokenpace.client.requests", attrGood); got["false"] != 1 {
		t.Errorf("requests by good = %v, want false 1", got)
	}
}

func TestOTelInferenceNames(t *testing.T) {
	for _, tt := range []struct {
		name          string
		opts          []Option
		oper, newName bool
	}{
		{"default", nil, true, false},
		{"both", []Option{WithInferenceNames()}, true, true},
		{"inference only", []Option{WithInferenceNames(), WithoutOperationNames()}, false, true},
		{"operation only kept without inference", []Option{WithoutOperationNames()}, true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rig := newRig(t, tt.opts...)
			rig.o.Record(context.Background(), stream(t, "a", "m", epoch, 0, 100*time.Millisecond, 10*time.Millisecond, 3))
			ms := rig.collect(t)
			for _, n := range []struct {
				name string
				want bool
			}{
				{"gen_ai.client.operation.duration", tt.oper},
				{"gen_ai.client.operation.time_to_first_chunk", tt.oper},
				{"gen_ai.client.operation.time_per_output_chunk", tt.oper},
				{"gen_ai.client.inference.duration", tt.newName},
				{"gen_ai.client.inference.time_to_first_chunk", tt.newName},
				{"gen_ai.client.inference.time_per_output_chunk", tt.newName},
				{"gen_ai.client.token.usage", true},
			} {
				if _, got := ms[n.name]; got != n.want {
					t.Errorf("metric %s present = %v, want %v", n.name, got, n.want)
				}
			}
			if tt.newName {
				dps := hist(t, ms, "gen_ai.client.inference.time_per_output_chunk", "s")
				if dps[0].Count != 2 || !slices.Equal(dps[0].Bounds, specDurations) {
					t.Errorf("inference time_per_output_chunk = %+v, want 2 samples in the duration buckets", dps[0])
				}
			}
		})
	}
}

func TestOTelBreakerState(t *testing.T) {
	rig := newRig(t)
	rig.o.BreakerStateChanged("a", "closed", "open")
	rig.o.BreakerStateChanged("b", "closed", "open")
	rig.o.BreakerStateChanged("b", "open", "half-open")
	rig.o.BreakerStateChanged("c", "closed", "bogus")
	ms := rig.collect(t)
	state := map[string]int64{}
	for _, dp := range ms["tokenpace.client.breaker.state"].Data.(metricdata.Gauge[int64]).DataPoints {
		state[attrsOf(dp.Attributes)["tokenpace.target"]] = dp.Value
	}
	if len(state) != 2 || state["a"] != 2 || state["b"] != 1 {
		t.Errorf("breaker state = %v, want a 2 (open), b 1 (half-open)", state)
	}
	var n int64
	for _, dp := range ms["tokenpace.client.breaker.transitions"].Data.(metricdata.Sum[int64]).DataPoints {
		n += dp.Value
	}
	if n != 4 {
		t.Errorf("breaker transitions = %d, want 4", n)
	}
	if err := rig.o.Shutdown(); err != nil {
		t.Errorf("Shutdown error: %v", err)
	}
	if _, ok := rig.collect(t)["tokenpace.client.breaker.state"]; ok {
		t.Errorf("breaker gauge still observed after Shutdown")
	}
}

func spanAttrs(s sdktrace.ReadOnlySpan) map[string]string {
	m := map[string]string{}
	for _, kv := range s.Attributes() {
		m[string(kv.Key)] = kv.Value.String()
	}
	return m
}

func TestOTelSpan(t *testing.T) {
	rig := newRig(t)
	tm := stream(t, "primary", "llama", epoch, 0, 250*time.Millisecond, 10*time.Millisecond, 4)
	tm.PromptTokens, tm.CachedTokens = 300, 100
	parentCtx, parent := sdktrace.NewTracerProvider().Tracer("test").Start(context.Background(), "parent")
	rig.o.Record(parentCtx, tm)
	parent.End()

	spans := rig.spans.Ended()
	if len(spans) != 1 {
		t.Fatalf("%d spans, want 1", len(spans))
	}
	s := spans[0]
	if s.Name() != "chat llama" || s.SpanKind() != trace.SpanKindClient {
		t.Errorf("span %q kind %v, want \"chat llama\" client", s.Name(), s.SpanKind())
	}
	if !s.StartTime().Equal(tm.Start) || !s.EndTime().Equal(tm.End) {
		t.Errorf("span %v..%v, want %v..%v", s.StartTime(), s.EndTime(), tm.Start, tm.End)
	}
	if s.Parent().SpanID() != parent.SpanContext().SpanID() {
		t.Errorf("span parent = %v, want %v", s.Parent().SpanID(), parent.SpanContext().SpanID())
	}
	want := map[string]string{
		"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai",
		"gen_ai.request.model": "llama", "gen_ai.response.model": "llama",
		"gen_ai.request.stream": "true", "gen_ai.response.time_to_first_chunk": "0.25",
		"gen_ai.usage.input_tokens": "300", "gen_ai.usage.output_tokens": "4",
		"gen_ai.usage.cache_read.input_tokens": "100", "gen_ai.response.finish_reasons": `["stop"]`,
		"server.address": "llm.internal", "server.port": "8000", "tokenpace.target": "primary",
	}
	got := spanAttrs(s)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("span attribute %s = %q, want %q", k, got[k], v)
		}
	}
	// Nothing of the conversation enters the span.
	for k := range got {
		for _, banned := range []string{"gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.prompt", "gen_ai.completion", "gen_ai.system_instructions"} {
			if k == banned {
				t.Errorf("span carries content attribute %s", k)
			}
		}
	}
	ev := s.Events()
	if len(ev) != 1 || ev[0].Name != EventFirstToken || !ev[0].Time.Equal(tm.Chunks[0]) {
		t.Errorf("events = %+v, want %s at %v", ev, EventFirstToken, tm.Chunks[0])
	}
	if s.Status().Code != codes.Unset {
		t.Errorf("status = %v, want unset", s.Status())
	}
}

func TestOTelSpanPolicies(t *testing.T) {
	rig := newRig(t)
	ms := func(n int) time.Time { return epoch.Add(time.Duration(n) * time.Millisecond) }
	tm := stream(t, "c", "m", epoch, 0, 400*time.Millisecond, 10*time.Millisecond, 3)
	tm.Breaches = []tokenpace.BudgetError{{Target: "a", Phase: tokenpace.PhaseTTFT, Limit: 100 * time.Millisecond, Observed: 100 * time.Millisecond}}
	tm.Attempts = []tokenpace.Attempt{
		{Target: "s", Model: "m", Start: ms(0), End: ms(0), Outcome: tokenpace.OutcomeSkipped},
		{Target: "a", Model: "m", Start: ms(0), End: ms(100), Outcome: tokenpace.OutcomeBreached},
		{Target: "b", Model: "m", Start: ms(100), End: ms(420), Outcome: tokenpace.OutcomeHedgeLost},
		{Target: "c", Model: "m", Start: ms(200), FirstToken: ms(400), End: tm.End, Tokens: 3, Outcome: tokenpace.OutcomeWon},
	}
	rig.o.Record(context.Background(), tm)
	spans := rig.spans.Ended()
	if len(spans) != 5 {
		t.Fatalf("%d spans, want 1 call + 4 attempts", len(spans))
	}
	var call sdktrace.ReadOnlySpan
	children := 0
	for _, s := range spans {
		if s.Parent().IsValid() {
			children++
		} else {
			call = s
		}
	}
	if call == nil || children != 4 {
		t.Fatalf("call span %v, %d children, want 1 call and 4 children", call, children)
	}
	type ev struct {
		name, target string
		at           time.Time
	}
	var got []ev
	for _, e := range call.Events() {
		target := ""
		for _, kv := range e.Attributes {
			if kv.Key == attrTarget {
				target = kv.Value.AsString()
			}
		}
		got = append(got, ev{e.Name, target, e.Time})
	}
	want := []ev{
		{EventFirstToken, "", ms(400)},
		{EventBreach, "a", ms(100)},
		{EventBreakerSkip, "s", ms(0)},
		{EventFallback, "a", ms(0)}, // the chain moved on past the skipped target
		{EventFallback, "b", ms(100)},
		{EventHedgeLost, "b", ms(420)},
		{EventHedge, "c", ms(200)},
		{EventHedgeWon, "c", ms(400)},
	}
	if !slices.EqualFunc(got, want, func(a, b ev) bool { return a.name == b.name && a.target == b.target && a.at.Equal(b.at) }) {
		t.Errorf("events =\n%v\nwant\n%v", got, want)
	}
	for _, s := range spans {
		if s == call {
			continue
		}
		if a := spanAttrs(s); a["tokenpace.attempt.outcome"] == "" || s.Parent().SpanID() != call.SpanContext().SpanID() {
			t.Errorf("attempt span %q attrs %v parent %v, want an outcome under the call", s.Name(), a, s.Parent().SpanID())
		}
	}
}

func TestOTelSpanError(t *testing.T) {
	rig := newRig(t)
	tm := stream(t, "", "m", epoch, 0, 2*time.Second, 0, 8)
	tm.Err = context.DeadlineExceeded
	rig.o.Record(context.Background(), tm)
	s := rig.spans.Ended()[0]
	if s.Status().Code != codes.Error || s.Status().Description != "timeout" {
		t.Errorf("status = %+v, want error \"timeout\"", s.Status())
	}
	if got := spanAttrs(s)["error.type"]; got != "timeout" {
		t.Errorf("error.type = %q, want timeout", got)
	}
	var kinds []string
	for _, e := range s.Events() {
		if e.Name == EventDetection {
			for _, kv := range e.Attributes {
				if kv.Key == attrKind {
					kinds = append(kinds, kv.Value.AsString())
				}
			}
		}
	}
	if !slices.Equal(kinds, []string{string(KindBufferingProxy)}) {
		t.Errorf("detection events = %v, want [%s]", kinds, KindBufferingProxy)
	}
}

func TestOTelNilTiming(t *testing.T) {
	rig := newRig(t)
	rig.o.Record(context.Background(), nil)
	if n := len(rig.spans.Ended()); n != 0 {
		t.Errorf("Record(nil) made %d spans, want 0", n)
	}
}

func TestAttemptKind(t *testing.T) {
	ms := func(n int) time.Time { return epoch.Add(time.Duration(n) * time.Millisecond) }
	tests := []struct {
		name string
		as   []tokenpace.Attempt
		want []string
	}{
		{"kinds as set", []tokenpace.Attempt{
			{Kind: tokenpace.AttemptFirst, Start: ms(0), End: ms(200)},
			{Kind: tokenpace.AttemptContinuation, Start: ms(200), End: ms(300)},
			{Kind: tokenpace.AttemptHedge, Start: ms(300), End: ms(400)},
		}, []string{"first", "continuation", "hedge"}},
		{"inferred without kinds", []tokenpace.Attempt{
			{Start: ms(0), End: ms(200)},
			{Start: ms(200), End: ms(300)},
			{Start: ms(250)},
		}, []string{"first", "fallback", "hedge"}},
	}
	for _, tt := range tests {
		var got []string
		for i := range tt.as {
			got = append(got, attemptKind(tt.as, i))
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: attemptKind = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// A continuation and a restart each count as their own attempt kind and
// put their own event, not a fallback's, on the call's span.
func TestOTelChainedAttempt(t *testing.T) {
	for _, tt := range []struct {
		kind  tokenpace.AttemptKind
		event string
	}{
		{tokenpace.AttemptContinuation, EventContinuation},
		{tokenpace.AttemptRestart, EventRestart},
	} {
		t.Run(string(tt.kind), func(t *testing.T) {
			rig := newRig(t)
			ms := func(n int) time.Time { return epoch.Add(time.Duration(n) * time.Millisecond) }
			tm := stream(t, "b", "m", epoch, 0, 100*time.Millisecond, 10*time.Millisecond, 6)
			tm.Attempts = []tokenpace.Attempt{
				{Target: "a", Model: "m", Kind: tokenpace.AttemptFirst, Start: ms(0), FirstToken: ms(100), End: ms(200), Tokens: 3, Outcome: tokenpace.OutcomeBreached},
				{Target: "b", Model: "m", Kind: tt.kind, Start: ms(200), FirstToken: ms(250), End: tm.End, Tokens: 3, Outcome: tokenpace.OutcomeWon},
			}
			rig.o.Record(context.Background(), tm)
			ms2 := rig.collect(t)
			kinds := map[string]int64{}
			for _, dp := range ms2["tokenpace.client.attempts"].Data.(metricdata.Sum[int64]).DataPoints {
				v, _ := dp.Attributes.Value(attrAttemptKind)
				kinds[v.AsString()] += dp.Value
			}
			if want := map[string]int64{"first": 1, string(tt.kind): 1}; !maps.Equal(kinds, want) {
				t.Errorf("attempts by kind = %v, want %v", kinds, want)
			}
			var names []string
			for _, s := range rig.spans.Ended() {
				if !s.Parent().IsValid() {
					for _, e := range s.Events() {
						names = append(names, e.Name)
					}
				}
			}
			if !slices.Contains(names, tt.event) || slices.Contains(names, EventFallback) {
				t.Errorf("call span events = %v, want %s and no %s", names, tt.event, EventFallback)
			}
		})
	}
}

func TestOTelServerFromTiming(t *testing.T) {
	tests := []struct {
		name     string
		opts     []Option
		target   string
		wantAddr string
		wantPort int64
	}{
		{"measured", nil, "a", "10.0.0.7", 8000},
		{"measured over the fallback", []Option{WithServer("", "https://fallback.example")}, "a", "10.0.0.7", 8000},
		{"override for the target", []Option{WithServer("a", "https://gw.example:9443/v1")}, "a", "gw.example", 9443},
	}
	for _, tt := range tests {
		reader := sdkmetric.NewManualReader()
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
		o, err := NewOTel(append([]Option{WithMeterProvider(mp)}, tt.opts...)...)
		if err != nil {
			t.Fatalf("%s: NewOTel error: %v", tt.name, err)
		}
		tm := stream(t, tt.target, "m", epoch, 0, 100*time.Millisecond, 10*time.Millisecond, 3)
		tm.ServerAddress, tm.ServerPort = "10.0.0.7", 8000
		o.Record(context.Background(), tm)
		var rm metricdata.ResourceMetrics
		if err := reader.Collect(context.Background(), &rm); err != nil {
			t.Fatal(err)
		}
		var dur metricdata.Metrics
		for _, m := range rm.ScopeMetrics[0].Metrics {
			if m.Name == "gen_ai.client.operation.duration" {
				dur = m
			}
		}
		dps := dur.Data.(metricdata.Histogram[float64]).DataPoints
		if len(dps) != 1 {
			t.Fatalf("%s: %d duration points, want 1", tt.name, len(dps))
		}
		addr, _ := dps[0].Attributes.Value("server.address")
		port, _ := dps[0].Attributes.Value("server.port")
		if addr.AsString() != tt.wantAddr || port.AsInt64() != tt.wantPort {
			t.Errorf("%s: server.address, server.port = %q, %d, want %q, %d", tt.name, addr.AsString(), port.AsInt64(), tt.wantAddr, tt.wantPort)
		}
		_ = mp.Shutdown(context.Background())
	}
}

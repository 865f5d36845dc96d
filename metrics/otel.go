package metrics

import (
	"context"
	"errors"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/semconv/v1.41.0/genaiconv"
	"go.opentelemetry.io/otel/trace"

	"github.com/tokenpace/tokenpace"
)

// ScopeName is the instrumentation scope name of the meter and tracer the
// OTel observer uses.
const ScopeName = "github.com/tokenpace/tokenpace/metrics"

// Version is the instrumentation scope version.
const Version = "0.1.0"

// Bucket boundaries advised by the GenAI semantic conventions (v1.41.0,
// docs/gen-ai/gen-ai-metrics.md): durations for
// gen_ai.client.operation.duration, the time to first chunk and the time per
// output chunk (a gap between chunks may last seconds: a reasoning pause, a
// tool call), tokens for gen_ai.client.token.usage; per token, the advice for
// gen_ai.server.time_per_output_token, for tokenpace's own time per output
// token.
var (
	durationBuckets = []float64{0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92}
	perTokenBuckets = []float64{0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5}
	tokenBuckets    = []float64{1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864}
)

// The gen_ai.client.inference.* names replace gen_ai.client.operation.* for
// inference in open-telemetry/semantic-conventions-genai pull request 521
// ("Use gen_ai.client.inference.duration metric instead of
// gen_ai.client.operation.duration"). No Go semconv package defines them yet,
// so they are spelled out here; replace them with the generated instruments
// once a semconv release ships them.
const (
	inferenceDuration    = "gen_ai.client.inference.duration"
	inferenceFirstChunk  = "gen_ai.client.inference.time_to_first_chunk"
	inferencePerChunk    = "gen_ai.client.inference.time_per_output_chunk"
	inferenceDescription = "GenAI inference duration."
)

// Attribute keys of tokenpace's own instruments and spans.
const (
	attrTarget       = attribute.Key("tokenpace.target")
	attrGood         = attribute.Key("tokenpace.request.good")
	attrPhase        = attribute.Key("tokenpace.budget.phase")
	attrClientLate   = attribute.Key("tokenpace.client.starved")
	attrOutcome      = attribute.Key("tokenpace.attempt.outcome")
	attrAttemptKind  = attribute.Key("tokenpace.attempt.kind")
	attrFromTarget   = attribute.Key("tokenpace.from_target")
	attrKind         = attribute.Key("tokenpace.detection.kind")
	attrBreakerFrom  = attribute.Key("tokenpace.breaker.from")
	attrBreakerTo    = attribute.Key("tokenpace.breaker.to")
	attrLimit        = attribute.Key("tokenpace.budget.limit")
	attrObserved     = attribute.Key("tokenpace.budget.observed")
	attrTPOT         = attribute.Key("tokenpace.tpot")
	attrQueue        = attribute.Key("tokenpace.queue")
	attrChunks       = attribute.Key("tokenpace.chunks")
	attrHTTPAttempts = attribute.Key("tokenpace.http_attempts")
	attrHint         = attribute.Key("tokenpace.detection.hint")
	attrMessage      = attribute.Key("tokenpace.detection.message")
	attrMilestone    = attribute.Key("tokenpace.milestone")
)

// An OTel observer turns every finished request into OpenTelemetry metrics
// (the GenAI client metrics of semantic conventions v1.41.0 and tokenpace's
// own, listed in the package doc) and a span. Prompt and completion text
// never reach it: a Timing holds none.
//
// An OTel is safe for concurrent use. Use NewOTel.
type OTel struct {
	cfg    config
	det    *Detector
	tracer trace.Tracer

	duration genaiconv.ClientOperationDuration
	tokens   genaiconv.ClientTokenUsage
	ttfc     genaiconv.ClientOperationTimeToFirstChunk
	tpoc     genaiconv.ClientOperationTimePerOutputChunk
	operOn   bool

	infDuration, infTTFC, infTPOC metric.Float64Histogram // nil unless WithInferenceNames

	tpot, queue    metric.Float64Histogram
	milestone      metric.Float64Histogram
	cached         metric.Int64Histogram
	requests       metric.Int64Counter
	breaches       metric.Int64Counter
	attempts       metric.Int64Counter
	detections     metric.Int64Counter
	transitions    metric.Int64Counter
	breakerGauge   metric.Int64ObservableGauge
	breakerMu      sync.Mutex
	breakerStates  map[string]int64
	breakerCallReg metric.Registration

	setsMu sync.RWMutex
	sets   map[setsKey]*attrSets
}

// NewOTel returns an OTel observer. It heeds WithMeterProvider,
// WithTracerProvider, WithInferenceNames, WithoutOperationNames,
// WithProviderName, WithServer, WithSLO and the detection options. An error means an
// instrument could not be created; the returned OTel is usable still, with
// that instrument dropped.
func NewOTel(opts ...Option) (*OTel, error) {
	cfg := newConfig(opts)
	return newOTel(cfg, cfg.detectorFor())
}

func newOTel(cfg config, det *Detector) (*OTel, error) {
	o := &OTel{
		cfg: cfg, det: det,
		tracer:        cfg.tracerProvider.Tracer(ScopeName, trace.WithInstrumentationVersion(Version), trace.WithSchemaURL(semconv.SchemaURL)),
		operOn:        !(cfg.inferenceNames && cfg.noOperation),
		breakerStates: make(map[string]int64),
		sets:          make(map[setsKey]*attrSets),
	}
	m := cfg.meterProvider.Meter(ScopeName, metric.WithInstrumentationVersion(Version), metric.WithSchemaURL(semconv.SchemaURL))
	in := instruments{m: m}
	check := in.check
	var err error
	o.duration, err = genaiconv.NewClientOperationDuration(m, metric.WithExplicitBucketBoundaries(durationBuckets...))
	check(err)
	o.tokens, err = genaiconv.NewClientTokenUsage(m, metric.WithExplicitBucketBoundaries(tokenBuckets...))
	check(err)
	o.ttfc, err = genaiconv.NewClientOperationTimeToFirstChunk(m, metric.WithExplicitBucketBoundaries(durationBuckets...))
	check(err)
	o.tpoc, err = genaiconv.NewClientOperationTimePerOutputChunk(m, metric.WithExplicitBucketBoundaries(durationBuckets...))
	check(err)
	if cfg.inferenceNames {
		o.infDuration = in.hist(inferenceDuration, o.duration.Unit(), inferenceDescription, durationBuckets)
		o.infTTFC = in.hist(inferenceFirstChunk, o.ttfc.Unit(), o.ttfc.Description(), durationBuckets)
		o.infTPOC = in.hist(inferencePerChunk, o.tpoc.Unit(), o.tpoc.Description(), durationBuckets)
	}

	o.tpot = in.hist("tokenpace.client.time_per_output_token", "s",
		"Time per output token after the first, per completed streaming request.", perTokenBuckets)
	o.queue = in.hist("tokenpace.client.queue.duration", "s",
		"Time spent in client-side admission before the request was sent.", durationBuckets)
	o.milestone = in.hist("tokenpace.client.time_to_milestone", "s",
		"Time from sending the request to a milestone of the output (first sentence, first line, user-defined).", durationBuckets)
	o.cached, err = m.Int64Histogram("tokenpace.client.token.cached", metric.WithUnit("{token}"),
		metric.WithDescription("Prompt tokens served from the server's prompt cache, per request that reported usage."),
		metric.WithExplicitBucketBoundaries(tokenBuckets...))
	check(err)
	o.requests = in.counter("tokenpace.client.requests", "{request}",
		"Finished requests, by whether they ended without error within the SLO (goodput, the caller's view) and by error type.")
	o.breaches = in.counter("tokenpace.client.budget.breaches", "{breach}", "Latency budget limits exceeded, by phase.")
	o.attempts = in.counter("tokenpace.client.attempts", "{attempt}",
		"Attempts of calls that made more than one, by kind (first, fallback, hedge, continuation, restart) and outcome.")
	o.detections = in.counter("tokenpace.client.detections", "{detection}", "Latency pathologies detected, by kind.")
	o.transitions = in.counter("tokenpace.client.breaker.transitions", "{transition}",
		"Circuit breaker state changes, by target and states.")
	o.breakerGauge, err = m.Int64ObservableGauge("tokenpace.client.breaker.state", metric.WithUnit("1"),
		metric.WithDescription("Circuit breaker state by target: 0 closed, 1 half-open, 2 open."))
	check(err)
	if err == nil && o.breakerGauge != nil {
		o.breakerCallReg, err = m.RegisterCallback(o.observeBreakers, o.breakerGauge)
		check(err)
	}
	o.fillNoop()
	return o, errors.Join(in.errs...)
}

// instruments creates instruments of m, collecting their errors.
type instruments struct {
	m    metric.Meter
	errs []error
}

// hist creates a histogram of seconds or other float values.
func (in *instruments) hist(name, unit, desc string, buckets []float64) metric.Float64Histogram {
	h, err := in.m.Float64Histogram(name, metric.WithUnit(unit), metric.WithDescription(desc),
		metric.WithExplicitBucketBoundaries(buckets...))
	in.check(err)
	return h
}

// counter creates a counter.
func (in *instruments) counter(name, unit, desc string) metric.Int64Counter {
	c, err := in.m.Int64Counter(name, metric.WithUnit(unit), metric.WithDescription(desc))
	in.check(err)
	return c
}

// check collects err, if not nil.
func (in *instruments) check(err error) {
	if err != nil {
		in.errs = append(in.errs, err)
	}
}

// fillNoop replaces the instruments a failing MeterProvider left nil with
// no-op ones, so that recording never dereferences nil.
func (o *OTel) fillNoop() {
	for _, h := range []*metric.Float64Histogram{&o.tpot, &o.queue, &o.milestone} {
		if *h == nil {
			*h = noop.Float64Histogram{}
		}
	}
	if o.cached == nil {
		o.cached = noop.Int64Histogram{}
	}
	for _, c := range []*metric.Int64Counter{&o.requests, &o.breaches, &o.attempts, &o.detections, &o.transitions} {
		if *c == nil {
			*c = noop.Int64Counter{}
		}
	}
}

// Hooks returns the hooks that feed o: add them to the client's hooks.
func (o *OTel) Hooks() tokenpace.Hooks {
	return tokenpace.Hooks{Done: o.Record}
}

// Record turns the finished request t into metrics and a span whose parent
// is the span in ctx, if any. It runs o's detector, if any, on t. A nil t is
// ignored.
func (o *OTel) Record(ctx context.Context, t *tokenpace.Timing) {
	if t == nil {
		return
	}
	var buf [2]Detection
	ds := o.det.Observe(buf[:0], t)
	o.record(ctx, t, ds)
	o.cfg.notify(ctx, ds)
}

func (o *OTel) record(ctx context.Context, t *tokenpace.Timing, ds []Detection) {
	s := o.setsFor(t)
	o.recordMetrics(ctx, t, s, ds)
	o.recordSpan(ctx, t, s, ds)
}

func (o *OTel) recordMetrics(ctx context.Context, t *tokenpace.Timing, s *attrSets, ds []Detection) {
	// The generated instruments' Record and RecordSet box the attribute set
	// on every call; recording through Inst with options boxed once per
	// attribute set keeps the per-chunk path free of allocations.
	if d := t.End.Sub(t.Start); d >= 0 && !t.Start.IsZero() && !t.End.IsZero() {
		if o.operOn {
			o.duration.Inst().Record(ctx, d.Seconds(), s.opOpt...)
		}
		if o.infDuration != nil {
			o.infDuration.Record(ctx, d.Seconds(), s.opOpt...)
		}
	}
	if t.Stream && len(t.Chunks) > 0 {
		o.recordChunks(ctx, t, s)
	}
	if t.UsageReported || t.PromptTokens > 0 {
		// A continued call's prompt tokens are its continuation's
		// server's, though its output tokens are counted in part.
		o.tokens.Inst().Record(ctx, int64(t.PromptTokens), s.inputOpt...)
		o.cached.Record(ctx, int64(t.CachedTokens), s.ownOpt...)
	}
	if t.UsageReported || t.OutputTokens > 0 {
		o.tokens.Inst().Record(ctx, int64(t.OutputTokens), s.outputOpt...)
	}
	if t.Err == nil && hasTPOT(t) {
		o.tpot.Record(ctx, t.TPOT().Seconds(), s.ownOpt...)
	}
	if !t.Sent.IsZero() && !t.Start.IsZero() {
		o.queue.Record(ctx, t.Queue().Seconds(), s.ownOpt...)
	}
	for name := range t.Milestones {
		if d, ok := t.Milestone(name); ok {
			o.milestone.Record(ctx, d.Seconds(), metric.WithAttributes(
				targetModel(t.Target, t.Model, attrMilestone.String(name))...))
		}
	}
	o.recordPolicy(ctx, t, s, ds)
}

// recordPolicy counts the request as good or not (SLO.Good, under
// WithSLO), and its breaches, attempts and detections.
func (o *OTel) recordPolicy(ctx context.Context, t *tokenpace.Timing, s *attrSets, ds []Detection) {
	if o.cfg.slo.Good(t) {
		o.requests.Add(ctx, 1, s.goodAdd...)
	} else {
		o.requests.Add(ctx, 1, s.badAdd...)
	}
	for _, b := range t.Breaches {
		o.breaches.Add(ctx, 1, metric.WithAttributes(targetModel(b.Target, breachModel(t, b),
			attrPhase.String(string(b.Phase)), attrClientLate.Bool(b.Late > 0))...))
	}
	if len(t.Attempts) > 1 {
		for i, a := range t.Attempts {
			o.attempts.Add(ctx, 1, metric.WithAttributes(targetModel(a.Target, a.Model,
				attrAttemptKind.String(attemptKind(t.Attempts, i)), attrOutcome.String(string(a.Outcome)))...))
		}
	}
	for _, d := range ds {
		o.detections.Add(ctx, 1, metric.WithAttributes(targetModel(d.Target, d.Model,
			attrKind.String(string(d.Kind)))...))
	}
}

// recordChunks records the caller's TTFT and every gap between output
// chunks of a streaming call that produced a token.
func (o *OTel) recordChunks(ctx context.Context, t *tokenpace.Timing, s *attrSets) {
	ttft := t.TTFT().Seconds()
	if o.operOn {
		o.ttfc.Inst().Record(ctx, ttft, s.chunkOpt...)
	}
	if o.infTTFC != nil {
		o.infTTFC.Record(ctx, ttft, s.chunkOpt...)
	}
	perChunk := o.tpoc.Inst()
	if !o.operOn {
		perChunk = nil
	}
	if perChunk != nil && !perChunk.Enabled(ctx) {
		perChunk = nil
	}
	for i := 1; i < len(t.Chunks); i++ {
		gap := t.Chunks[i].Sub(t.Chunks[i-1]).Seconds()
		if perChunk != nil {
			perChunk.Record(ctx, gap, s.chunkOpt...)
		}
		if o.infTPOC != nil {
			o.infTPOC.Record(ctx, gap, s.chunkOpt...)
		}
	}
}

// targetModel returns kv with gen_ai.request.model and, when target is not
// empty, tokenpace.target.
func targetModel(target, model string, kv ...attribute.KeyValue) []attribute.KeyValue {
	kv = append(kv, semconv.GenAIRequestModel(model))
	if target != "" {
		kv = append(kv, attrTarget.String(target))
	}
	return kv
}

// breachModel is the model that breach b's attempt asked for: that of an
// attempt at b's target, else the call's. A Router's route names are
// unique and each route asks for one model, so every attempt at a target
// names the same model.
func breachModel(t *tokenpace.Timing, b tokenpace.BudgetError) string {
	for _, a := range t.Attempts {
		if a.Target == b.Target && a.Model != "" {
			return a.Model
		}
	}
	return t.Model
}

// attemptKind says how attempt i of as came about: its Kind, as the Router
// set it. A Timing that did not come from a Router may leave Kind empty;
// the kind is then inferred from the times: "first", "hedge" when it
// started while an earlier attempt still ran, else "fallback".
func attemptKind(as []tokenpace.Attempt, i int) string {
	if k := as[i].Kind; k != "" {
		return string(k)
	}
	if i == 0 {
		return string(tokenpace.AttemptFirst)
	}
	for _, p := range as[:i] {
		if p.End.IsZero() || as[i].Start.Before(p.End) {
			return string(tokenpace.AttemptHedge)
		}
	}
	return string(tokenpace.AttemptFallback)
}

// BreakerStateChanged records that the circuit breaker of target moved
// between states, named as gobreaker's State.String does: "closed",
// "half-open", "open". It counts the transition and sets the
// tokenpace.client.breaker.state gauge; an unknown state name is counted
// but leaves the gauge as it was. Set tokenpace.BreakerSettings.OnStateChange
// to it.
func (o *OTel) BreakerStateChanged(target, from, to string) {
	o.transitions.Add(context.Background(), 1, metric.WithAttributes(
		attrTarget.String(target), attrBreakerFrom.String(from), attrBreakerTo.String(to)))
	v, ok := breakerValue(to)
	if !ok {
		return
	}
	o.breakerMu.Lock()
	o.breakerStates[target] = v
	o.breakerMu.Unlock()
}

func breakerValue(state string) (int64, bool) {
	switch state {
	case "closed":
		return 0, true
	case "half-open":
		return 1, true
	case "open":
		return 2, true
	}
	return 0, false
}

func (o *OTel) observeBreakers(_ context.Context, obs metric.Observer) error {
	o.breakerMu.Lock()
	defer o.breakerMu.Unlock()
	for target, v := range o.breakerStates {
		obs.ObserveInt64(o.breakerGauge, v, metric.WithAttributes(attrTarget.String(target)))
	}
	return nil
}

// Shutdown unregisters o's callback for the breaker gauge. o still records
// requests afterwards.
func (o *OTel) Shutdown() error {
	if o.breakerCallReg == nil {
		return nil
	}
	return o.breakerCallReg.Unregister()
}

package metrics

import (
	"context"
	"errors"
	"maps"
	"slices"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/tokenpace/tokenpace"
)

// Span event names. Every event carries the time it happened, from the
// Timing; the attempt events carry tokenpace.target.
const (
	EventFirstToken   = "tokenpace.first_token"   // the first output chunk arrived
	EventMilestone    = "tokenpace.milestone"     // a milestone of the output was reached (tokenpace.milestone)
	EventBreach       = "tokenpace.budget_breach" // a budget limit was exceeded (phase, limit, observed)
	EventFallback     = "tokenpace.fallback"      // an attempt started anew after the earlier ones failed or were skipped
	EventHedge        = "tokenpace.hedge"         // an attempt started while another still waited for its first token
	EventContinuation = "tokenpace.continuation"  // an attempt started to carry on output the caller already had
	EventRestart      = "tokenpace.restart"       // an attempt started anew after a stream broke inside a tool call; the caller was told to drop what it had
	EventHedgeWon     = "tokenpace.hedge.won"     // the winner of a hedge produced its first token
	EventHedgeLost    = "tokenpace.hedge.lost"    // a hedged attempt was cancelled as the loser
	EventBreakerSkip  = "tokenpace.breaker_skip"  // a target was skipped: breaker open or admission refused
	EventSuperseded   = "tokenpace.superseded"    // a newer request for the same key replaced this one
	EventInvalid      = "tokenpace.invalid"       // the validator rejected the output
	EventDetection    = "tokenpace.detection"     // a detector flagged a pathology (kind, message, hint)
)

// recordSpan emits the span of the call t, started and ended at the
// recorded times, with its events and, when a policy made more than one
// attempt, one child span per attempt.
func (o *OTel) recordSpan(ctx context.Context, t *tokenpace.Timing, s *attrSets, ds []Detection) {
	ctx, span := o.tracer.Start(ctx, spanName(t.API, t.Model),
		trace.WithSpanKind(trace.SpanKindClient), trace.WithTimestamp(t.Start),
		trace.WithAttributes(s.op.ToSlice()...))
	if !span.IsRecording() {
		span.End(trace.WithTimestamp(t.End))
		return
	}
	attrs := make([]attribute.KeyValue, 0, 10)
	attrs = append(attrs, semconv.GenAIRequestStream(t.Stream), attrChunks.Int(max(t.OutputChunks, len(t.Chunks))))
	if t.Stream && len(t.Chunks) > 0 {
		// A non-streaming call has no first chunk (its Timing no chunks,
		// whether a Client or a Router made it), as the metrics have it.
		attrs = append(attrs, semconv.GenAIResponseTimeToFirstChunk(t.TTFT().Seconds()))
	}
	if t.UsageReported || t.PromptTokens > 0 {
		attrs = append(attrs, semconv.GenAIUsageInputTokens(t.PromptTokens),
			semconv.GenAIUsageCacheReadInputTokens(t.CachedTokens))
	}
	if t.UsageReported || t.OutputTokens > 0 {
		attrs = append(attrs, semconv.GenAIUsageOutputTokens(t.OutputTokens))
	}
	if t.ReasoningTokens > 0 {
		attrs = append(attrs, semconv.GenAIUsageReasoningOutputTokens(t.ReasoningTokens))
	}
	if t.ResponseID != "" {
		attrs = append(attrs, semconv.GenAIResponseID(t.ResponseID))
	}
	if t.FinishReason != "" {
		attrs = append(attrs, semconv.GenAIResponseFinishReasons(t.FinishReason))
	}
	if p := t.TPOT(); p > 0 {
		attrs = append(attrs, attrTPOT.Float64(p.Seconds()))
	}
	if !t.Sent.IsZero() && !t.Start.IsZero() {
		attrs = append(attrs, attrQueue.Float64(t.Queue().Seconds()))
	}
	if len(t.HTTP) > 0 {
		attrs = append(attrs, attrHTTPAttempts.Int(len(t.HTTP)))
	}
	attrs = append(attrs, policyAttrs(t)...)
	span.SetAttributes(attrs...)

	if len(t.Chunks) > 0 {
		span.AddEvent(EventFirstToken, trace.WithTimestamp(t.Chunks[0]))
	}
	for _, name := range slices.Sorted(maps.Keys(t.Milestones)) {
		span.AddEvent(EventMilestone, trace.WithTimestamp(t.Milestones[name]),
			trace.WithAttributes(attrMilestone.String(name)))
	}
	for _, b := range t.Breaches {
		span.AddEvent(EventBreach, trace.WithTimestamp(breachTime(t, b)), trace.WithAttributes(
			attrTarget.String(b.Target), attrPhase.String(string(b.Phase)),
			attrLimit.Float64(b.Limit.Seconds()), attrObserved.Float64(b.Observed.Seconds()),
			attrClientLate.Bool(b.Late > 0)))
	}
	o.attemptEvents(ctx, span, t)
	if errors.Is(t.Err, tokenpace.ErrInvalidOutput) {
		span.AddEvent(EventInvalid, trace.WithTimestamp(t.End))
	}
	for _, d := range ds {
		span.AddEvent(EventDetection, trace.WithTimestamp(d.At), trace.WithAttributes(
			attrKind.String(string(d.Kind)), attrMessage.String(d.Message), attrHint.String(d.Hint)))
	}
	if t.Err != nil {
		span.SetStatus(codes.Error, ErrorType(t.Err))
	}
	span.End(trace.WithTimestamp(t.End))
}

// attemptEvents adds the policy events of t's attempts to span and, when
// there are several attempts, a child span for each.
func (o *OTel) attemptEvents(ctx context.Context, span trace.Span, t *tokenpace.Timing) {
	if len(t.Attempts) < 2 {
		for _, a := range t.Attempts {
			if a.Outcome == tokenpace.OutcomeSuperseded {
				span.AddEvent(EventSuperseded, trace.WithTimestamp(endOr(a.End, t.End)))
			}
		}
		return
	}
	hedged := false
	for _, a := range t.Attempts {
		hedged = hedged || a.Outcome == tokenpace.OutcomeHedgeLost
	}
	for i, a := range t.Attempts {
		target := attrTarget.String(a.Target)
		switch kind := attemptKind(t.Attempts, i); {
		case a.Outcome == tokenpace.OutcomeSkipped:
			span.AddEvent(EventBreakerSkip, trace.WithTimestamp(a.Start), trace.WithAttributes(target))
		case kind == string(tokenpace.AttemptFallback) && i > 0:
			span.AddEvent(EventFallback, trace.WithTimestamp(a.Start), trace.WithAttributes(
				target, attrFromTarget.String(t.Attempts[i-1].Target)))
		case kind == string(tokenpace.AttemptContinuation) && i > 0:
			span.AddEvent(EventContinuation, trace.WithTimestamp(a.Start), trace.WithAttributes(
				target, attrFromTarget.String(t.Attempts[i-1].Target)))
		case kind == string(tokenpace.AttemptRestart) && i > 0:
			span.AddEvent(EventRestart, trace.WithTimestamp(a.Start), trace.WithAttributes(
				target, attrFromTarget.String(t.Attempts[i-1].Target)))
		case kind == string(tokenpace.AttemptHedge):
			span.AddEvent(EventHedge, trace.WithTimestamp(a.Start), trace.WithAttributes(target))
		}
		switch {
		case a.Outcome == tokenpace.OutcomeHedgeLost:
			span.AddEvent(EventHedgeLost, trace.WithTimestamp(endOr(a.End, t.End)), trace.WithAttributes(target))
		case a.Outcome == tokenpace.OutcomeWon && hedged:
			span.AddEvent(EventHedgeWon, trace.WithTimestamp(endOr(a.FirstToken, t.End)), trace.WithAttributes(target))
		case a.Outcome == tokenpace.OutcomeSuperseded:
			span.AddEvent(EventSuperseded, trace.WithTimestamp(endOr(a.End, t.End)), trace.WithAttributes(target))
		}
		o.attemptSpan(ctx, t, i)
	}
}

func (o *OTel) attemptSpan(ctx context.Context, t *tokenpace.Timing, i int) {
	a := t.Attempts[i]
	attrs := []attribute.KeyValue{
		semconv.GenAIOperationNameKey.String(string(operationName(t.API))),
		semconv.GenAIProviderNameKey.String(o.cfg.provider),
		semconv.GenAIRequestModel(a.Model),
		attrTarget.String(a.Target),
		attrAttemptKind.String(attemptKind(t.Attempts, i)),
		attrOutcome.String(string(a.Outcome)),
		semconv.GenAIUsageOutputTokens(a.Tokens),
	}
	attrs = append(attrs, attemptPolicyAttrs(a)...)
	if ttft := a.TTFT(); ttft > 0 {
		// The attempt's own TTFT, from its request; the call's span has
		// the caller's.
		attrs = append(attrs, semconv.GenAIResponseTimeToFirstChunk(ttft.Seconds()))
	}
	if a.ResponseID != "" {
		attrs = append(attrs, semconv.GenAIResponseID(a.ResponseID))
	}
	if a.Err != nil {
		attrs = append(attrs, semconv.ErrorTypeKey.String(ErrorType(a.Err)))
	}
	_, span := o.tracer.Start(ctx, spanName(t.API, a.Model),
		trace.WithSpanKind(trace.SpanKindClient), trace.WithTimestamp(a.Start), trace.WithAttributes(attrs...))
	if !a.FirstToken.IsZero() {
		span.AddEvent(EventFirstToken, trace.WithTimestamp(a.FirstToken))
	}
	if a.Err != nil {
		span.SetStatus(codes.Error, ErrorType(a.Err))
	}
	span.End(trace.WithTimestamp(endOr(a.End, a.Start)))
}

// breachTime is when breach b happened: the end of the attempt it cancelled,
// else the end of the call.
func breachTime(t *tokenpace.Timing, b tokenpace.BudgetError) time.Time {
	for _, a := range t.Attempts {
		if a.Target == b.Target && a.Outcome == tokenpace.OutcomeBreached && !a.End.IsZero() {
			return a.End
		}
	}
	return t.End
}

func endOr(at, fallback time.Time) time.Time {
	if at.IsZero() {
		return fallback
	}
	return at
}

// spanName follows the GenAI conventions: "{operation} {model}".
func spanName(api tokenpace.API, model string) string {
	op := string(operationName(api))
	if model == "" {
		return op
	}
	return op + " " + model
}

// Package metrics turns the Timing of every finished tokenpace request into
// numbers people can watch: OpenTelemetry metrics and spans that follow the
// GenAI semantic conventions, an in-process Recorder with percentiles,
// throughput and goodput, and detectors for the latency pathologies users
// actually hit.
//
// Everything reaches this package through tokenpace.Hooks. New builds an
// Observer that runs all of it; NewRecorder and NewOTel build one part
// alone. Each returns its hooks from Hooks(). LogHooks logs each finished
// request's figures with log/slog instead.
//
// # OpenTelemetry metrics
//
// The GenAI client metrics come from the generated instruments of
// go.opentelemetry.io/otel/semconv/v1.41.0/genaiconv, with the bucket
// boundaries the conventions advise. v1.41.0 is the last semconv release
// of the Go module that generates them: from v1.42.0 on, the GenAI
// conventions live in a repository of their own
// (open-telemetry/semantic-conventions-genai), which has made no release
// yet, and the module generates none of them
// (open-telemetry/opentelemetry-go#8465); until it makes one,
// open-telemetry/semantic-conventions-genai#247 advises keeping those
// generated from the core conventions.
//
//	name                                           unit     recorded
//	gen_ai.client.operation.duration               s        per call, Start to End (admission, retries and fallbacks included)
//	gen_ai.client.operation.time_to_first_chunk    s        per streaming call with a token: Sent to first output chunk (a Router call's: the caller's)
//	gen_ai.client.operation.time_per_output_chunk  s        per gap between consecutive output chunks
//	gen_ai.client.token.usage                      {token}  input (when the server reported usage) and output (without usage: output chunks, one token each on most servers, as the conventions ask of a server that streams its tokens one by one), by gen_ai.token.type
//
// with gen_ai.operation.name ("chat" for chat completions and the Responses
// API, "text_completion" for the completions API), gen_ai.provider.name (WithProviderName),
// gen_ai.request.model, gen_ai.response.model, server.address and server.port
// (from tokenpace.Timing.ServerAddress and ServerPort; WithServer overrides
// them), error.type on the duration of failed calls (the conventions define it
// on no other of them), and
// tokenpace.target. WithInferenceNames adds the same histograms under the
// newer names gen_ai.client.inference.duration,
// gen_ai.client.inference.time_to_first_chunk and
// gen_ai.client.inference.time_per_output_chunk; WithoutOperationNames then
// drops the older.
//
// tokenpace's own instruments:
//
//	name                                    type       unit          attributes
//	tokenpace.client.time_per_output_token  histogram  s             target, model; completed streams with ≥2 tokens
//	tokenpace.client.queue.duration         histogram  s             target, model; client-side admission (Sent − Start)
//	tokenpace.client.time_to_milestone      histogram  s             target, model, tokenpace.milestone; Sent to the milestone
//	tokenpace.client.token.cached           histogram  {token}       target, model; prompt tokens served by the prompt cache
//	tokenpace.client.requests               counter    {request}     target, model, tokenpace.request.good (SLO.Good: goodput), error.type
//	tokenpace.client.budget.breaches        counter    {breach}      target, model (the breaching attempt's), tokenpace.budget.phase (ttft, gap, e2e, tps), tokenpace.client.starved (the client was starved: BudgetError.Late)
//	tokenpace.client.attempts               counter    {attempt}     target, model, tokenpace.attempt.kind (first, fallback, hedge, continuation, restart, retry),
//	                                                                 tokenpace.attempt.outcome (won, breached, failed, hedge_lost,
//	                                                                 skipped, invalid, superseded, canceled); calls with >1 attempt
//	tokenpace.client.detections             counter    {detection}   target, model, tokenpace.detection.kind
//	tokenpace.client.breaker.transitions    counter    {transition}  target, tokenpace.breaker.from, tokenpace.breaker.to
//	tokenpace.client.breaker.state          gauge      1             target; 0 closed, 1 half-open, 2 open
//
// "target" is tokenpace.target and "model" gen_ai.request.model.
// Superseded (latest-wins) requests are the attempts with outcome
// superseded; fallbacks, hedges and continuations are the attempts of those kinds, by
// outcome. The breaker metrics are fed by OTel.BreakerStateChanged.
//
// error.type, and the Recorder's error counts, hold a low-cardinality class
// of the error, never its message: the HTTP status code of API errors
// ("429"); tokenpace's own endings ("budget_exceeded", "circuit_open",
// "admission", "superseded", "invalid_output", "stream_closed", and the
// kind of a StreamError: "stream_reset", "stream_truncated",
// "malformed_event", "content_type", "error_event", "too_large", "panic");
// "canceled", "timeout", "unexpected_eof"; else the result of an
// ErrorType() string method in the error chain, else the Go type of the
// error.
//
// # Spans
//
// Each call yields a client span named "{gen_ai.operation.name} {model}"
// ("chat gpt-4.1" for chat completions and the Responses API,
// "text_completion qwen2.5-coder" for the completions API), from
// Timing.Start to Timing.End, a child of the span in the call's context,
// with the GenAI
// attributes above plus gen_ai.request.stream,
// gen_ai.response.time_to_first_chunk, gen_ai.usage.input_tokens,
// gen_ai.usage.output_tokens, gen_ai.usage.cache_read.input_tokens,
// gen_ai.usage.reasoning.output_tokens (when the server counted reasoning),
// gen_ai.response.id (Timing.ResponseID: after a continuation or restart
// the last attempt's, the one to chain the next turn on, though the events
// the caller read may carry the first's; each attempt's span has its own)
// and gen_ai.response.finish_reasons, and events at the recorded times:
// EventFirstToken, EventMilestone, EventBreach, EventFallback, EventHedge,
// EventContinuation, EventRestart, EventHedgeWon, EventHedgeLost, EventBreakerSkip,
// EventSuperseded, EventInvalid and EventDetection. A call with more than
// one attempt gets one child span per attempt, with its
// tokenpace.attempt.kind as the Router set it (tokenpace.Attempt.Kind).
//
// Prompt and completion text never enter telemetry: a Timing holds none, and
// no attribute or event of this package carries message content, API keys,
// URLs' paths or credentials (only host and port are kept).
//
// # Recorder
//
// The Recorder keeps, per target and model and in total, TTFT, ITL, TPOT,
// E2E and time-to-milestone distributions in HDR histograms (percentiles within
// RelativeError, bounded memory), request and output-token throughput over
// the whole run and over a sliding window, goodput (requests and tokens per
// second that ended without error and met an optional SLO), error kinds,
// budget breaches by phase, detections, and a least-squares fit of TTFT
// against uncached prompt tokens that shows what a long prompt will cost.
// Its Snapshot renders as a table (WriteTable, String) and as JSON.
//
// # Goodput
//
// Goodput is the caller's view: a request is good when it ended without
// error (Timing.Err is nil; a validator's rejection of the final output is
// an error) and its figures met the SLO of WithSLO, if any (SLO.Good). A
// Router call's figures are the caller's, so a budget breach that a
// fallback, hedge or continuation recovered from makes the call bad only
// when the time it cost pushes those figures past the SLO. Breaches are
// counted apart, one per attempt that breached, recovered or not, against
// that attempt's target and model: the Recorder's Snapshot.Breaches (the
// "breaches:" line of its table and the breaches column of its per-target
// rows) and tokenpace.client.budget.breaches. The same rule sets
// tokenpace.request.good on tokenpace.client.requests. Timing.OK, false
// after any breach, is stricter than goodput.
//
// # Detectors
//
// A Detector flags a buffering proxy (every chunk in one burst after a long
// silence: the "illusion of speed", fixed by X-Accel-Buffering: no; or a
// successful response that is not text/event-stream, also in an attempt a
// Router recovered from) and a
// collapse of the decode rate below the recent median of the same target
// and model (the server's KV cache is exhausted). Detections appear as span
// events, in the tokenpace.client.detections counter, in the Recorder's
// snapshot, and through WithDetectionHandler and WithLogger.
package metrics

// Package tokenpace calls LLMs over OpenAI-compatible streaming APIs with
// measured and enforced latency.
//
// A Client wraps an openai.Client from github.com/openai/openai-go/v3 and
// takes the same parameters and request options, so switching costs one
// line:
//
//	tp := tokenpace.NewClient(client)
//	stream := tp.NewStreaming(ctx, params, opts...) // was client.Chat.Completions.NewStreaming
//	for stream.Next() {
//		chunk := stream.Current()
//		...
//	}
//	err := stream.Err()
//	t := stream.Timing() // when each part of the request happened
//
// # Concepts
//
//   - Client and Router: the same entry points, as openai-go's, timed:
//     NewStreaming and New (chat), NewCompletionStreaming and
//     NewCompletion (completions, fill-in-the-middle with a suffix),
//     NewResponseStreaming and NewResponse (the Responses API), each over
//     openai-go's own types. WithTimingInto hands a non-streaming call's
//     Timing over, as option.WithResponseInto hands its HTTP response.
//   - Stream[E]: openai-go's Next, Current, Err, Close over the API's
//     event type E, plus Timing, Text and Accumulated (the output so far,
//     kept when a stream fails midway).
//     The response is read as it arrives, so timestamps are arrival times,
//     whatever the caller does between chunks.
//   - Timing: the raw timestamps of one request and the figures derived
//     from them (below); every Stream, hook and metric uses it.
//   - Budget: limits on TTFT, the gap between tokens, the call's end-to-end
//     time (E2E, as metrics.SLO names it) and the decode rate (MinTPS),
//     watched as chunks arrive.
//   - Router: an ordered list of Routes (an endpoint and model with its budget, rate
//     Limit, Breaker and Validator) under a Policy: fallback, hedging,
//     continuation, retries it owns, and admission that skips a route whose
//     learnt TTFT cannot fit the budget. Policies nest as
//     Fallback(Hedge(Budget(Breaker(Limiter(call))))). The caller gets one
//     Stream; its Timing lists every Attempt (Kind, Outcome) and every
//     breach as a BudgetError. A stream that handed the caller a tool call
//     is never continued: it restarts, and the caller is told (see
//     Stream.Restarted). Affinity keeps a session on the route that
//     answered it last, Probation holds a stream's first tokens until it
//     proves healthy, Limit.FollowServer follows the server's rate-limit
//     headers and BreakerSettings.Ramp brings a route back gradually.
//   - Hooks: first token, milestones and, exactly once per request, the
//     final Timing (WithHooks, ContextWithHooks): the seam for metrics
//     (package metrics), logs (metrics.LogHooks) and user code. Hooks never see
//     prompt or completion text, nor keys.
//   - Latest: one request in flight per key, the newest wins; the one it
//     replaces ends with ErrSuperseded.
//
// # Figures
//
// Queue is the time spent in client-side admission (a rate limiter) before
// the request leaves, Timing.Queue; the server's own queue is inside TTFT.
//
// TTFT, from the request being sent to the first chunk that carries
// generated output (content, reasoning, a tool call or a refusal; role-only
// and empty chunks do not count), measures prefill: one compute-bound pass
// over the uncached prompt. TTFB, the response headers, comes earlier and
// says little.
//
// ITL is the gap between consecutive output-bearing chunks (Timing.ITL,
// Timing.MaxGap; metrics.DistOf for its percentiles); decode is
// memory-bound, so a 70B model at 4 bits on 1000 GB/s takes at least
// 35 ms a token. TPOT is (E2E − TTFT) / (tokens − 1) with the end taken
// at the last token (the wait for the usage chunk, [DONE] or the body's
// end after it is no decoding) and the server's own token count, TPS its
// inverse. A chunk may carry several tokens: ITL is per chunk, TPOT per
// token.
//
// E2E runs from the request being sent to the end of the stream. TTFT and
// E2E count from the call's first HTTP request: openai-go's retries, and
// the waits a Retry-After asked for, are inside them (Timing.HTTP records
// each request; the answering one's own time to first token is Chunks[0]
// less the last HTTP attempt's Start). UserTTFT counts from the call, so it
// adds the client-side queue. Milestones (MilestoneFirstSentence,
// MilestoneFirstLine, WithMilestone) mark when the user can act before the
// end.
//
// A Router call's figures are the caller's: Queue is only the limiter
// wait, TTFT runs from the call's first request to the first token the
// caller received (after fallbacks, hedges and retries), E2E to the end
// the caller saw, and ITL and TPOT cover the stream the caller read, a
// continuation included. Hooks, metrics and SLOs see these figures; each
// Attempt keeps its own (Attempt.TTFT).
//
// See ExampleTiming, ExampleWithHooks, ExampleRouter, ExampleBudgetError,
// ExampleHedge, ExamplePolicy_continue and ExampleLatest.
package tokenpace

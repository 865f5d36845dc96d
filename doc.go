// Package tokenpace calls LLMs over OpenAI-compatible streaming APIs with
// measured and enforced latency.
//
// # The one-line switch
//
// A Client wraps an openai.Client from github.com/openai/openai-go/v3 and
// takes the same parameters and request options:
//
//	tp := tokenpace.NewClient(client)
//	// was: stream := client.Chat.Completions.NewStreaming(ctx, params, opts...)
//	stream := tp.NewStreaming(ctx, params, opts...)
//	for stream.Next() {
//		chunk := stream.Current()
//		...
//	}
//	err := stream.Err()
//	t := stream.Timing() // when each part of the request happened
//
// The Stream has openai-go's shape (Next, Current, Err, Close) and adds
// Timing and Accumulated, the completion so far, which a stream that fails
// midway keeps. New and NewTimed do the same for non-streaming calls.
//
// # Where the time goes
//
// A request to an LLM passes through four phases, and each has its figure.
//
// Queue: time spent in client-side admission (a rate limiter, say) before
// the request leaves, Timing.Queue. The server's own queue, waiting for a
// free slot on a GPU, is part of the next phase as the client sees it.
//
// Prefill, measured as TTFT (time to first token): from the request being
// sent to the first chunk that carries generated output, Timing.TTFT. The
// server reads the whole prompt in one compute-bound pass (its cost grows
// faster than the prompt, unless a prefix cache holds it), so TTFT is what
// a long prompt costs. Role-only and empty chunks do not count: a server
// that sends the role at once is not faster for it. TTFB, the response
// headers, comes earlier and says little: some servers send headers at
// once, others with the first token.
//
// Decode, measured as ITL (inter-token latency): the gap between
// consecutive output-bearing chunks, Timing.ITL, with its distribution
// from Timing.ITLStats. Each step reads all the model's weights from
// memory, so it is memory-bound: a 70B model at 4 bits (35 GB) on
// 1000 GB/s takes at least 35 ms per token. TPOT is the mean time per
// output token after the first, (E2E − TTFT) / (tokens − 1), counted with
// the server's own token count, and TPS its inverse, the stream's decode
// rate. A chunk may carry several tokens: ITL is per chunk, TPOT per
// token.
//
// E2E: from the request being sent to the end of the stream, Timing.E2E,
// roughly TTFT + tokens × TPOT. UserTTFT counts from the call instead, so
// it includes the queue and openai-go's retries, each of which
// Timing.HTTP records.
//
// Users act before the end: a voice bot hands the first complete sentence
// to text-to-speech, an editor shows the first line of ghost text. The
// Timing records those milestones (MilestoneFirstSentence,
// MilestoneFirstLine) and any defined with WithMilestone.
//
// # Measured on arrival
//
// Every timestamp is taken when the bytes arrived, not when the caller got
// round to Next: each stream has a goroutine that reads the response as it
// comes and stamps each event with the time of the read that completed it.
// A caller that does slow work between chunks does not change the figures.
//
// # Budgets and the Router
//
// A Budget bounds a stream's TTFT, the gap between tokens (a stall), its
// total time and its decode rate (MinTPS). A Router enforces budgets while
// the stream runs and, when one is exceeded, recovers along an ordered list
// of routes (targets: a model on an endpoint). Its policies nest in the
// order
//
//	Fallback(Hedge(Budget(Breaker(Limiter(call)))))
//
// innermost first: a route's rate limiter (Limit, or Route.Limiter) admits
// the request or skips the route when waiting would break the TTFT budget;
// its circuit breaker (BreakerSettings, or Route.Breaker) skips a route that
// keeps failing; the budget watches the stream as it arrives and cancels a
// breaching attempt; hedging (Policy.Hedge) starts the next route in
// parallel when the first token is late, and the first token wins;
// fallback moves to the next route when an attempt fails or breaches before
// any output reached the caller. With Policy.Continue, a stream that stalls
// after output reached the caller is carried on by the next route, the
// caller's stream going on seamlessly. A Validator (Policy.Validator,
// Route.Validator) checks the finished output.
//
// A Router call's figures are the caller's: Queue is only the limiter
// wait, TTFT runs from the call's first request to the first token the
// caller received (after fallbacks, hedges and retries), E2E to the end
// the caller saw, and ITL and TPOT cover the stream the caller read, a
// continuation included. Hooks, metrics and SLOs see these figures; each
// Attempt keeps its own (Attempt.TTFT).
//
// Whatever happens, the caller gets one Stream. Its Timing lists every
// Attempt, with why it started (Kind: first, fallback, hedge, retry,
// continuation) and how it ended (Outcome), and every breach as a
// BudgetError; a *BudgetError also says which limit ended a call. See ExampleRouter,
// ExampleBudgetError, ExampleHedge and ExamplePolicy_continue.
//
// # Latest wins
//
// Latest keeps one request in flight per key and cancels the one it
// replaces with ErrSuperseded: what autocompletion needs, where each
// keystroke makes the previous suggestion worthless. A Router call ended
// that way records OutcomeSuperseded, which counts neither as a failure nor
// against a breaker. See ExampleLatest.
//
// # Observers
//
// Hooks (WithHooks, ContextWithHooks) receive live events (first token,
// milestones) and, exactly once per request whatever its ending, the final
// Timing: the seam for metrics (package metrics), logs (LogHooks) and user
// code. Hook payloads carry timings, token counts, model and target names;
// never prompt or completion text, nor API keys. See ExampleWithHooks and
// ExampleTiming.
package tokenpace

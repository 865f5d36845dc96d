// Package simulate is a simulated OpenAI-compatible LLM backend with a
// hardware model: it predicts and serves the latency a model would have on
// given GPUs, so clients can be tested, and capacity planned, without one.
//
// # Timing core
//
// A Scheduler decides when every token of every request is emitted. Two
// implement it:
//
//   - Engine is the hardware model: prefill is compute-bound, a decode step
//     costs the longest of the paths that overlap — its memory time
//     (weights and KV cache read at the GPU's bandwidth), its compute time,
//     and the unpacking of weight-only formats fused beside them — plus
//     what does not overlap (host overhead, tensor-parallel all-reduces);
//     it queues requests for free
//     slots, batches continuously, caches prefixes, accounts KV-cache blocks
//     (offloading or preempting when they run out) and decodes
//     speculatively. NewEngine builds one from a Deployment (model, GPU,
//     precision, efficiency).
//   - Fixed emits the first token a fixed TTFT after arrival and each further
//     one a fixed ITL later, with no limit on concurrency: simple, exact
//     timing for client tests.
//
// # Hardware and prediction
//
// A GPU comes from the catalog (LookupGPU) or from a GPUSpec, the figures
// a datasheet gives; GPUSpec.GPU fills what is not given from the memory
// class and architecture and lists each default as an Assumption.
// Predict simulates a Scenario on a deployment and explains the figures;
// an Observation is one measured figure, and ErrorBands says how far the
// model's predictions fell from published measurements.
//
// # Planning
//
// Capacity planning and calibration build on this package and live in
// package simulate/plan, which imports it (never the other way):
// plan.Measure judges an offline run against a plan.SLO, plan.Search
// looks for the cheapest deployment that meets one, and
// plan.DesignCalibration and plan.Calibrate fit a deployment's free
// constants to measurements of a real endpoint.
//
// # Drivers
//
// The offline driver, Run, feeds a whole workload (Arrivals) through a
// Scheduler without goroutines or sleeping and returns each request's
// timings (Results); Predict builds on it. The online driver is the Server: one goroutine per model owns its
// Scheduler, admits requests as they arrive, and sends each token when it is
// due, waiting for absolute deadlines (the driver's start plus the event's
// time) so that late wake-ups never accumulate. Go's timers wake an idle
// process up to a millisecond after a deadline; WithPreciseTimer waits on a
// Linux timerfd instead, for sub-millisecond sends at some CPU cost.
//
// # Server
//
// Server is an http.Handler speaking the OpenAI API: POST
// /v1/chat/completions, /v1/completions (with a suffix: fill-in-the-middle;
// with echo, the prompt at the start of the text) and /v1/responses
// (streaming or not), GET /v1/models, /health and a Prometheus-style
// /metrics of the engine's state.
// Streams are Server-Sent Events with Content-Type text/event-stream,
// Cache-Control no-cache and X-Accel-Buffering no, one flush per chunk, a
// finish chunk with finish_reason "stop" or "length", a usage chunk (choices
// empty, usage.prompt_tokens_details.cached_tokens from the prefix cache)
// when stream_options.include_usage is set, and data: [DONE]. Options pick
// multi-token chunks (WithChunkTokens) and when the role-only chunk goes out
// (WithRoleFirst). Several models may share a server, each with its own
// Scheduler, so a client can fall back from one to another on one endpoint.
// A Responses stream is the API's typed events (response.created,
// response.in_progress, response.output_item.added,
// response.content_part.added, response.output_text.delta, the matching
// .done events, response.completed or response.incomplete with the usage),
// each with its sequence_number. The Response object, in those events and
// as a whole response, echoes the request's settings as OpenAI does
// (instructions, max_output_tokens, temperature, top_p, background,
// previous_response_id, metadata, tools, tool_choice, text, reasoning,
// parallel_tool_calls, store, top_logprobs, truncation, user). A
// response is stored unless its request set store to false (the latest
// 4,096 of a Server): a later request that names it in
// previous_response_id carries its conversation on, the earlier prompt
// and reply counted as prompt tokens before the new input and reused from
// the prefix cache of the replica that kept them; an id the Server does
// not hold is refused as OpenAI refuses it (400, code
// previous_response_not_found). A request with background true runs
// apart from its connection, as OpenAI's background mode does: its
// stream opens with response.created and response.queued (status
// "queued") and gives response.in_progress with the first token; its
// generation goes on whatever the client does (a disconnect, a fault
// that cuts the stream) until it ends or POST /v1/responses/{id}/cancel
// cancels it, and its events are kept, so that GET
// /v1/responses/{id}?stream=true&starting_after=N (stream may come in a
// JSON body, as openai-go sends it) replays those after sequence number
// N and goes on with the live ones when the engine makes them; a GET
// without stream answers the Response object as it stands, and a
// background request without stream is answered at once, queued. An id
// the Server holds as no background response gets 404; background with
// store false gets 400. The latest 128 background responses are kept
// (the oldest finished one is dropped for a new one; while 128 are
// generating a new one gets 429), each with its latest 512 KiB of
// events (a resume from before them gets 400). WithToolCalls scripts tool calls, streamed
// as OpenAI streams them on chat (tool_calls deltas, finish_reason
// "tool_calls") and on the Responses API (function_call items,
// response.function_call_arguments.delta and .done).
// Log-probabilities come as OpenAI gives them when asked (chat logprobs
// and top_logprobs, legacy completions logprobs, Responses top_logprobs
// or include "message.output_text.logprobs"): an entry per token of each
// chunk (chat choices[].logprobs.content; legacy tokens, token_logprobs,
// top_logprobs and text_offset; the logprobs of Responses output_text
// events and parts). The simulator has no model to score tokens: the
// values are drawn, the same for the same seed, each token the most
// likely at its position and its alternatives other words of the
// vocabulary; tool calls carry none.
// Bad requests get OpenAI-style JSON errors:
// 400 (invalid JSON, no model, max_tokens out of range, n other than 1,
// top_logprobs without logprobs or above 20, legacy logprobs above 5,
// more than MaxStop stop sequences, stream_options without stream, a chat
// message without a known role or, but from the assistant, without
// content), 404 (unknown model or path), 405 (wrong
// method), 408 (body not received in time), 413 (body too large).
//
// Generated text is deterministic: words with spaces, full stops every few
// words and a line break every three sentences, seeded by WithSeed and the
// request's seed or prompt. WithReply scripts exact replies; stop sequences
// cut the text as OpenAI does. The simulator has no tokenizer: it counts
// about four bytes of text per token (see the rule in text.go), and a chat
// request's prefix-cache key is a hash of every message but the last; a
// prompt sent again (the same messages, completions prompt and suffix, or
// Responses input), also after its first request was cut off, finds all of
// it but its last token cached, in whole blocks as vLLM does.
//
// # Network and faults
//
// WithRTT delays the request by half the round trip and every response
// byte by the other half; WithBuffering holds the whole response until the
// generation ends, as a buffering proxy would. /metrics includes a histogram
// of how late the server wrote each response's bytes: its own timing error. Faults (429 with
// Retry-After, 500, 503, a reset before headers or mid-stream, a stall, a
// malformed or oversized event, an error event, a stream truncated without
// [DONE], slow headers, a wrong content type) are drawn by rate, scripted per request index, or picked by
// a client through the FaultHeader request header where the server accepts
// it (WithFaultHeader; on in the test constructors and ServeInMemory).
//
// # Hostile clients
//
// Every error, including the pages net/http writes itself (wrap the
// listener with JSONErrorPages), is an OpenAI-style JSON error. Bodies are
// capped (WithMaxBodyBytes) and must arrive within WithBodyTimeout; a
// prompt of token ids is counted, never decoded; at most MaxStop stop
// sequences are accepted; a fault's For is at most MaxFaultDuration. A
// client that stops reading is dropped once a write has waited
// WithWriteTimeout for it (DefaultWriteTimeout), so it holds no goroutine
// and at most that long's worth of its stream in memory; it never delays
// other streams, and Close ends its request at once.
//
// # Serving cost
//
// Served with its ConnContext, a Server writes each stream chunk from the
// model's driver at the wake-up that finds it due, in one system call that
// never waits, to the plain HTTP/1.1 connection; a client that does not
// keep up has the rest written by its request's goroutine, so it never
// holds up other streams.
//
// # Tests
//
// StartLoopback serves on a real 127.0.0.1 port; StartInMemory serves on an
// in-memory listener (MemListener) and returns an *http.Client dialing it.
// Inside a testing/synctest bubble the latter runs on virtual time: a test
// of a 30-second stream takes microseconds, and every arrival time is exact.
package simulate

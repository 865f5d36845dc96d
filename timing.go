package tokenpace

import (
	"maps"
	"slices"
	"time"

	"github.com/tokenpace/tokenpace/internal/codec"
)

// Timing is the measured timeline of one request: raw arrival timestamps and
// the figures derived from them. Every timestamp is taken when the bytes
// arrived, not when the caller read them. A zero time.Time means the moment
// never came (no first token on a failed request, say).
//
// A Timing is filled in while the request runs and is final once the request
// has ended (EOF, error, Close or cancellation); observers only ever see a
// final Timing. Its methods are pure: they compute from the fields and never
// read a clock.
type Timing struct {
	// Target names the target that answered (see Route.Name); empty when
	// the call went straight to one client.
	Target string
	// Model is the requested model; ResponseModel the one the server said
	// answered.
	Model, ResponseModel string
	// ResponseID is the id the server gave its answer, from the first
	// event that has one: the chat completion's or the completion's id,
	// or the Responses response's. For a Router call it is that of the
	// answer the caller's output ends with: after a restart or a
	// continuation, the last attempt's, whose response the server stored
	// with the rest of the output, though the events the caller read keep
	// the first response's id (see Router.NewResponseStreaming): the one
	// to give as previous_response_id.
	ResponseID string
	// Stream is true for a streaming call.
	Stream bool
	// API is the OpenAI API the call used; the zero value is APIChat.
	API API
	// ServerAddress and ServerPort are the host and port of the answering
	// HTTP request's URL (the port implied by the scheme when the URL
	// names none): what OpenTelemetry calls server.address and
	// server.port. Never credentials, path or query. Empty and 0 until a
	// request is sent.
	ServerAddress string
	ServerPort    int

	// Start is when the caller made the call.
	Start time.Time
	// Sent is when the request left for the server after client-side
	// admission (limiter wait); TTFT and E2E count from here. It is the
	// first HTTP request's start, so openai-go's retries and their waits
	// count in TTFT and E2E (see HTTP). For a Router call it is when the
	// call's first request left.
	Sent time.Time
	// WroteRequest is when the request was fully written to the connection
	// (httptrace), of the last HTTP attempt.
	WroteRequest time.Time
	// Headers is when the response headers arrived.
	Headers time.Time
	// Streaming holds the streaming-related response headers of the
	// answering HTTP request; zero when no response came.
	Streaming StreamHeaders
	// FirstChunk is when the first SSE event arrived, token or not.
	FirstChunk time.Time
	// Chunks holds the arrival time of every output-bearing chunk (content,
	// reasoning, tool-call or refusal delta), in order, up to the first
	// 65,536 of them: an output of more chunks keeps its memory
	// bounded, and OutputChunks, LastChunk and MaxGap still cover it all.
	// Chunks[0] is the first token. For a Router call, only the chunks the
	// caller received. None for a non-streaming call (New, NewCompletion,
	// NewResponse, of a Client or a Router), which shows no token before
	// its whole answer: its TTFT is 0 and its E2E the whole answer's time.
	Chunks []time.Time
	// OutputChunks counts the output-bearing chunks, len(Chunks) unless
	// there were more than 65,536.
	OutputChunks int
	// LastChunk is when the last output-bearing chunk arrived.
	LastChunk time.Time
	// End is when the request ended, whatever the ending.
	End time.Time

	// Milestones holds when named predicates over the accumulated text first
	// held: MilestoneFirstSentence, MilestoneFirstLine and user-defined ones.
	Milestones map[string]time.Time

	// Conn is the connection breakdown of the last HTTP attempt.
	Conn ConnInfo
	// HTTP lists every HTTP request made for this call, in order: retries
	// by openai-go included, and a request sent again because it failed on
	// a reused connection that the server had closed, or because the
	// server refused the stream_options the client added (see Client).
	// For a Client call the last one is the one that answered; a Router
	// call lists its attempts' requests attempt after attempt (see
	// Attempts).
	HTTP []HTTPAttempt

	// PromptTokens, CachedTokens and OutputTokens come from the usage chunk
	// when the server sent one (UsageReported), else OutputTokens counts
	// output-bearing deltas and the others are zero. A Router call's
	// PromptTokens and CachedTokens are those its last request's server
	// reported (a continuation's prompt holds the output so far), and its
	// OutputTokens count the whole output the caller read: an attempt's
	// usage for each attempt that reported one, else its deltas, so
	// UsageReported is false when an attempt the caller read from (one
	// that broke before its usage, say) counted by deltas, though
	// PromptTokens may still be the server's.
	PromptTokens, CachedTokens, OutputTokens int
	// ReasoningTokens is how many of OutputTokens the server says went to
	// reasoning (reasoning_tokens in its usage); zero when it said none.
	// Reasoning a server did not stream (OpenAI's reasoning models: no
	// text, or a summary of it) was spent before the first token: TPOT
	// and TPS leave it out.
	ReasoningTokens int
	// UsageReported says the token counts came from the server: for a
	// Router call, OutputTokens from every attempt the caller read.
	UsageReported bool
	// PromptBytes is the length in bytes of the prompt's text as sent: the
	// messages' text, or the completion's prompt; zero when the prompt
	// holds other parts (images, audio, files), whose tokens its bytes do
	// not tell. Beside PromptTokens it shows a prompt the server cut to
	// fit its context (see metrics.KindPromptCut).
	PromptBytes int
	// FinishReason is the finish_reason of the first choice, if any came.
	FinishReason string

	// Attempts lists every route a Router call tried or skipped, in start
	// order, each with its Kind and Outcome; a Router call always fills it,
	// even with a single attempt. Empty for a Client call.
	Attempts []Attempt
	// Breaches lists the budget limits the call exceeded (even when a
	// policy recovered from them).
	Breaches []BudgetError
	// Err is how the request ended: nil after a clean end of stream.
	Err error

	// laterGap is the longest gap between output-bearing chunks past
	// the first maxChunkStamps.
	laterGap time.Duration
	// reasoningShown: the stream showed its reasoning text itself (see
	// codec.ShowsReasoning), so its reasoning tokens came after the first
	// token.
	reasoningShown bool
	// parts: t is a Router call's, summed from its tries (see
	// call.build); hidden is then how many of ReasoningTokens its tries'
	// streams did not show, try by try.
	parts  bool
	hidden int
	// rejected is how many of OutputTokens the server says were a
	// Predicted Output's tokens it rejected (see codec.Usage.Rejected):
	// never streamed, so TPOT and TPS leave them out.
	rejected int
}

// maxChunkStamps is how many chunk arrivals a Timing keeps in Chunks.
const maxChunkStamps = 1 << 16

// addChunk records an output-bearing chunk that arrived at at.
func (t *Timing) addChunk(at time.Time) {
	if len(t.Chunks) < maxChunkStamps {
		t.Chunks = append(t.Chunks, at)
	} else {
		t.laterGap = max(t.laterGap, at.Sub(t.LastChunk))
	}
	t.OutputChunks++
	t.LastChunk = at
}

// Milestone names recorded by default.
const (
	// MilestoneFirstSentence is when the accumulated text first holds a
	// complete sentence, at the arrival of its terminator: what a voice
	// bot hands to text-to-speech.
	MilestoneFirstSentence = "first_sentence"
	// MilestoneFirstLine is when the accumulated text first holds a
	// complete line: what ghost text shows.
	MilestoneFirstLine = "first_line"
)

// ConnInfo is the connection breakdown from net/http/httptrace.
type ConnInfo struct {
	DNS, Connect, TLS time.Duration // zero when the step did not happen
	Reused            bool          // the connection came from the pool
}

// HTTPAttempt is one HTTP request of a call: openai-go retries an error
// status or a failed connection with a fresh request.
type HTTPAttempt struct {
	// Start is when the request was handed to the transport; WroteRequest
	// when it was fully written; Headers when the response headers arrived.
	// Zero when the moment never came.
	Start, WroteRequest, Headers time.Time
	// Status is the response's status code; 0 without a response.
	Status int
	// RetryAfter is the wait an error response asked for (Retry-After or
	// retry-after-ms, or, of a 429 that names it in its body only,
	// Gemini's retryDelay or OpenAI's "Please try again in 20s"); zero
	// when it asked for none.
	RetryAfter time.Duration
	// Conn is the connection breakdown of this request.
	Conn ConnInfo
	// Err is the transport error, if the request got no response.
	Err error
}

// Queue is the time spent in client-side admission: Sent − Start.
func (t *Timing) Queue() time.Duration { return since(t.Start, t.Sent) }

// TTFB is the time from Sent to the response headers.
func (t *Timing) TTFB() time.Duration { return since(t.Sent, t.Headers) }

// TTFT is the time from Sent to the first output-bearing chunk, or 0 if none
// arrived.
func (t *Timing) TTFT() time.Duration {
	if len(t.Chunks) == 0 {
		return 0
	}
	return since(t.Sent, t.Chunks[0])
}

// UserTTFT is the time to first token as the caller lived it: from Start,
// so it is TTFT plus the client-side admission (Queue). Retries and
// fallbacks are in both.
func (t *Timing) UserTTFT() time.Duration {
	if len(t.Chunks) == 0 {
		return 0
	}
	return since(t.Start, t.Chunks[0])
}

// E2E is the time from Sent to the end of the request.
func (t *Timing) E2E() time.Duration { return since(t.Sent, t.End) }

// Milestone reports how long after Sent the named milestone was reached.
func (t *Timing) Milestone(name string) (time.Duration, bool) {
	at, ok := t.Milestones[name]
	if !ok {
		return 0, false
	}
	return since(t.Sent, at), true
}

// ITL returns the inter-token latency of every gap between consecutive
// output-bearing chunks, by arrival: len(Chunks)-1 values, in a new slice
// (the gaps of the first 65,536 chunks).
func (t *Timing) ITL() []time.Duration {
	if len(t.Chunks) < 2 {
		return nil
	}
	gaps := make([]time.Duration, len(t.Chunks)-1)
	for i := range gaps {
		gaps[i] = t.Chunks[i+1].Sub(t.Chunks[i])
	}
	return gaps
}

// MaxGap is the longest gap between consecutive output-bearing chunks.
func (t *Timing) MaxGap() time.Duration {
	m := t.laterGap
	for i := 1; i < len(t.Chunks); i++ {
		m = max(m, t.Chunks[i].Sub(t.Chunks[i-1]))
	}
	return m
}

// TPOT is the time per output token after the first:
// (E2E − TTFT) / (OutputTokens − 1), with the end taken at the last token.
// It is 0 with fewer than two output tokens. Reasoning tokens that the
// stream did not show (see ReasoningTokens) are not counted: they were
// spent before its first token, in its TTFT. Nor are the tokens of a
// Predicted Output that the server rejected
// (completion_tokens_details.rejected_prediction_tokens), which
// OutputTokens counts but the stream never carries.
func (t *Timing) TPOT() time.Duration {
	n := t.OutputTokens - t.rejected - t.hiddenReasoning()
	if n < 2 || len(t.Chunks) == 0 {
		return 0
	}
	last := t.LastChunk
	if last.IsZero() { // a Timing made by hand, with Chunks only
		last = t.Chunks[len(t.Chunks)-1]
	}
	return last.Sub(t.Chunks[0]) / time.Duration(n-1)
}

// hiddenReasoning returns how many of ReasoningTokens the stream did not
// show: all of them, unless it showed its reasoning; for a Router call,
// the sum of its tries', each of which showed its own reasoning or not (a
// stream broken in reasoning it showed may be continued on a server that
// hides its own).
func (t *Timing) hiddenReasoning() int {
	switch {
	case t.parts:
		return t.hidden
	case t.reasoningShown:
		return 0
	}
	return t.ReasoningTokens
}

// TPS is the decode rate of this stream in tokens per second, 1/TPOT; 0
// when TPOT is.
func (t *Timing) TPS() float64 {
	p := t.TPOT()
	if p <= 0 {
		return 0
	}
	return float64(time.Second) / float64(p)
}

// OK reports whether the request ended cleanly (no validator rejected its
// output) and no attempt of it breached a budget, even one a policy
// recovered from. Goodput, as package metrics counts it, is the caller's
// view and less strict: an end without error and the caller's figures
// within the SLO, whatever breaches were recovered from behind them.
func (t *Timing) OK() bool { return t.Err == nil && len(t.Breaches) == 0 }

func since(from, to time.Time) time.Duration {
	if from.IsZero() || to.IsZero() {
		return 0
	}
	return to.Sub(from)
}

// clone returns a copy of t that shares no slices or maps with it.
func (t *Timing) clone() *Timing {
	c := *t
	c.Chunks = slices.Clone(t.Chunks)
	c.HTTP = slices.Clone(t.HTTP)
	c.Attempts = slices.Clone(t.Attempts)
	c.Breaches = slices.Clone(t.Breaches)
	c.Milestones = maps.Clone(t.Milestones)
	return &c
}

// API names an OpenAI API that tokenpace times.
type API string

// The APIs tokenpace times. The zero API is APIChat, so that a Timing
// built by hand is a chat completion's.
const (
	APIChat        API = ""            // chat completions: NewStreaming, New
	APICompletions API = "completions" // completions, fill-in-the-middle too: NewCompletionStreaming, NewCompletion
	APIResponses   API = "responses"   // the Responses API: NewResponseStreaming, NewResponse
)

// Attempt is one try at one target within a call.
type Attempt struct {
	// Target and Model name the route tried and the model it asked for.
	Target, Model string
	// Kind says why the Router started the attempt: AttemptFirst,
	// AttemptFallback, AttemptHedge, AttemptContinuation, AttemptRestart
	// or AttemptRetry.
	Kind AttemptKind
	// Start is when the attempt began (or was skipped); Sent when its
	// first request left (zero if it never did); FirstToken and End as for
	// Timing, on the attempt's own clock: FirstToken is zero for a
	// non-streaming call, which shows no token before its whole answer.
	Start, Sent, FirstToken, End time.Time
	// Tokens is how many output tokens the attempt delivered to the
	// caller; for a non-streaming call, those of the whole answer it
	// delivered, by the server's usage (0 without one).
	Tokens int
	// Outcome says how the attempt ended.
	Outcome Outcome
	// Err is the attempt's error, if any.
	Err error
	// Affinity says the Router tried this route first because it had
	// answered the call's session last (Policy.Affinity).
	Affinity bool
	// Admission names the policy that held the attempt back or skipped
	// its route, beyond its breaker and client-side limit: "server_limit"
	// when its server had said it had no room until a reset or asked for
	// a wait (Limit.FollowServer), "ramp" when its breaker had closed
	// recently and the route received only a share of calls
	// (BreakerSettings.Ramp); "" otherwise.
	Admission string
	// Committed is when the attempt's output, held back on probation
	// (Policy.Probation), was released to the caller: the probation's
	// cost is Committed − FirstToken. Zero when it was not held.
	Committed time.Time
	// ResponseID is the id the server gave the attempt's answer (see
	// Timing.ResponseID); "" when none came.
	ResponseID string
}

// TTFT is the attempt's own time to first token: from its Sent to its
// first output-bearing chunk, whether or not that reached the caller; 0
// without one.
func (a Attempt) TTFT() time.Duration { return since(a.Sent, a.FirstToken) }

// AttemptKind says why the Router started an attempt.
type AttemptKind string

// Kinds of attempt.
const (
	// AttemptFirst: the call's first try, on its first route (even when
	// that route is skipped).
	AttemptFirst AttemptKind = "first"
	// AttemptFallback: started after the earlier attempts failed, were
	// skipped (breaker open, admission refused) or breached their budget
	// before any output reached the caller; it answers from the start.
	AttemptFallback AttemptKind = "fallback"
	// AttemptHedge: started while an earlier attempt still waited for its
	// first token (Policy.Hedge).
	AttemptHedge AttemptKind = "hedge"
	// AttemptContinuation: started after output had reached the caller,
	// to carry that output on (Policy.Continue); one that resumed a
	// background response's stream has the ResponseID of the attempt it
	// resumed.
	AttemptContinuation AttemptKind = "continuation"
	// AttemptRestart: started after output that carried a tool call had
	// reached the caller and its attempt broke; it answers from the start,
	// and the caller is told (Stream.Restarted). See Router.
	AttemptRestart AttemptKind = "restart"
	// AttemptRetry: the same route again, after it answered with a
	// Retry-After that still fits the call's TTFT budget.
	AttemptRetry AttemptKind = "retry"
)

// Outcome says how an attempt ended.
type Outcome string

// Outcomes of an attempt.
const (
	OutcomeWon        Outcome = "won"        // delivered the caller's output
	OutcomeBreached   Outcome = "breached"   // exceeded its budget and was cancelled
	OutcomeFailed     Outcome = "failed"     // ended with an error
	OutcomeHedgeLost  Outcome = "hedge_lost" // another hedged attempt produced a token first
	OutcomeSkipped    Outcome = "skipped"    // breaker open or limiter too slow: never sent
	OutcomeInvalid    Outcome = "invalid"    // the validator rejected its output
	OutcomeSuperseded Outcome = "superseded" // a newer request for the same key replaced it
	OutcomeCanceled   Outcome = "canceled"   // the caller gave up
)

// setUsage records the token counts a server reported, if it did.
func (t *Timing) setUsage(u codec.Usage, valid bool) {
	if !valid {
		return
	}
	t.trustUsage(u)
}

// trustUsage records the token counts a server reported, unless one is
// negative or absurd (then the usage is not trusted: UsageReported stays
// as it was and OutputTokens is counted from the deltas). Cached tokens
// are at most the prompt's, reasoning ones at most the output's, and
// rejected prediction tokens at most the rest of it.
func (t *Timing) trustUsage(u codec.Usage) {
	if !u.Trusted() {
		return
	}
	t.UsageReported = true
	t.PromptTokens = int(u.Prompt)
	t.CachedTokens = int(min(max(u.Cached, 0), u.Prompt))
	t.OutputTokens = int(u.Output)
	t.ReasoningTokens = int(min(max(u.Reasoning, 0), u.Output))
	t.rejected = int(min(max(u.Rejected, 0), u.Output-int64(t.ReasoningTokens)))
}

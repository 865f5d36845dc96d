package tokenpace

// How a stream is built, and where a policy layer plugs in.
//
// An attempt (attempt.go) is one streaming HTTP call to one target, built
// from an attemptSpec (client, target name, params, request options,
// config, call start). The call goes through openai-go's NewStreaming,
// retries included, with an innermost middleware of an exchange
// (exchange.go) that records every HTTP request (the HTTP fields of
// Timing, httptrace breakdown) and wraps the body so each read is stamped.
// Each event is decoded as soon as its bytes are read and stamped with the
// time of the read that completed it, by whichever goroutine holds the
// attempt's reader role (handoff.go). Chunks queue in the attempt until the
// consumer takes them in batches.
//
// startAttempt runs the call and the reading on the attempt's goroutine
// and returns at once: for policies that run attempts side by side. Its
// reader reads eagerly: one lock per chunk on the reader's side, one per
// batch on the consumer's, and a wake-up only when the consumer waits (at
// once up to the first token, then before each read of the body, so the
// chunks of one read cost one wake-up). callAttempt, which a plain call
// uses, makes the call on the caller's goroutine and starts no goroutine:
// the caller reads the body itself while it waits in Next, so a read that
// returns is its arrival, and a background reader reads only while the
// caller is away (at once, or, for a caller that has kept up, after it has
// been away for a few tens of microseconds; see absence).
//
// An attempt reports its live events through attemptEvents, on the
// goroutine that reads, outside its lock: first token, every output-bearing chunk,
// milestones, and end exactly once with its final Timing. A watchdog arms
// and resets its timers from them, against arrival times, whether or not
// the caller reads. Its consumer uses a small method set and nothing else:
// poll and take hand over the chunks that arrived, cut stops it keeping
// only what arrived so far, content and delivered say what the consumer
// will have had, stop cancels it and waits for its end, timing is a
// snapshot while it runs and the final Timing after. The consumer learns
// of the end only after the end event (and so every Done hook) has run.
//
// A Stream reads from a source: take hands over the chunks that arrived
// since the last take, blocking while there are none; no chunks means the
// end, with its error. A plain call's source is its single attempt
// (attemptSource). A Router call (call.go) implements source itself: it
// starts attempts (admission.go), classifies their events and decides
// what to do in pure steps (decide.go), acts in one place (events.go),
// stops the losers and forwards the winners' chunks, switching attempts
// between two takes. The Stream's accumulated completion carries on
// across a switch, since the Stream accumulates whatever its source
// delivers. The call's timing (calltiming.go) returns the caller's Timing
// (Attempts, Breaches filled in), and it calls Hooks.Done once for the
// call when its last attempt has ended; a Stream reports ErrStreamClosed
// as a nil Err.

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace/internal/codec"
)

// source delivers a Stream's chunks.
type source interface {
	// take waits for chunks the Stream has not had yet and returns them,
	// taking buf (drained) for reuse. No chunks means the source ended; the
	// error says how (nil after a clean end).
	take(buf []arrived) ([]arrived, error)
	// timing returns the call's Timing: a snapshot while it runs, the final
	// one after it ended.
	timing() *Timing
	// close stops the source if it still runs and returns once its final
	// Timing has been reported.
	close()
}

// Stream is a streaming call with the shape of openai-go's
// ssestream.Stream[E] (Next, Current, Err, Close) plus its Timing and the
// output accumulated so far. E is the event type of the call's API, as
// openai-go has it: openai.ChatCompletionChunk for a chat completion
// (NewStreaming), openai.Completion for a completion (NewCompletionStreaming),
// responses.ResponseStreamEventUnion for a response (NewResponseStreaming).
// Every API is timed alike: see NewStreaming for what counts as a token.
//
// The response is read as it arrives, so how fast the caller reads does not
// change the measured timings. A Client's stream is read by the caller
// itself, inside Next, while it waits for a chunk (the read's return is the
// chunk's arrival), and in the background while it is away; a Router's
// attempts are read in the background. A caller that kept up for a few chunks
// keeps reading itself after short absences: a chunk that arrives while
// it is away for less than 50 µs is stamped when it comes back, at most
// 50 µs late. Hooks run on the goroutine that read the chunk: the
// caller's, inside Next, or the background reader's. Chunks the caller has
// not read yet wait in memory, up to about 4 MiB decoded (some 1,500
// chunks). A caller that falls further behind holds the response back:
// the reader stops until
// the caller takes chunks, nothing is lost and the order is kept, but the
// chunks that wait in the connection meanwhile are stamped when the reader
// gets to them, later than their bytes arrived, and a Gap or MinTPS budget
// counts that wait. The output a Stream keeps for Accumulated, Text and a
// continuation (text, refusals, reasoning, tool calls, audio; a
// response's output items given whole, which a Router that continues it
// keeps) is bounded at 64 MiB, far beyond any answer a model may give: a
// server that streams
// on past it, ignoring the request's max tokens, ends the stream with a
// KindTooLarge error, the output before it kept. As with openai-go, a caller that stops
// before the end must Close the stream to release the connection. Next,
// Current, Err and Accumulated must be called from one goroutine; Close and
// Timing may be called from any.
type Stream[E any] struct {
	src    source
	batch  []arrived
	pos    int
	err    error
	acc    codec.Accumulator
	ended  atomic.Bool
	closed sync.Once
}

// newStream is the stream of src, a call of req (nil when the stream
// does not run one request from its start, as a type-ahead view).
func newStream[E any](src source, req codec.Request) *Stream[E] {
	s := &Stream[E]{src: src}
	s.acc.Limit = codec.OutputLimit(req)
	if req != nil && req.API() == codec.APIChat {
		s.acc.Offered = codec.OfferedFunctions(req.View())
	}
	return s
}

// Next advances to the next event, waiting for it to arrive, and reports
// whether there is one. It returns false at the end of the stream, after an
// error (see Err) or after Close.
func (s *Stream[E]) Next() bool {
	if s.ended.Load() || s.src == nil { // the zero Stream, as openai-go's, has nothing
		return false
	}
	if s.pos+1 < len(s.batch) {
		s.pos++
	} else {
		batch, err := s.src.take(s.batch)
		if len(batch) == 0 {
			if err != ErrStreamClosed {
				s.err = err
			}
			s.ended.Store(true)
			return false
		}
		s.batch, s.pos = batch, 0
	}
	s.noteRestart()
	if !s.acc.Add(&s.batch[s.pos].Event) {
		s.err = &StreamError{Kind: KindMalformed, Detail: "a chunk the accumulator refused"}
		if s.acc.Over() {
			s.err = &StreamError{Kind: KindTooLarge, Detail: "output over 64 MiB"}
		}
		s.Close()
		return false
	}
	return true
}

// Current returns the event Next advanced to.
func (s *Stream[E]) Current() E {
	if s.pos < len(s.batch) {
		if ev, ok := s.batch[s.pos].Orig.(*E); ok {
			return *ev
		}
	}
	var zero E
	return zero
}

// current returns the event Next advanced to as its API sent it (see
// codec.Event.Orig), nil if there is none.
func (s *Stream[E]) current() any {
	if s.pos < len(s.batch) {
		return s.batch[s.pos].Orig
	}
	return nil
}

// Err returns the error that ended the stream: nil after a clean end or a
// Close; the caller's context error, unchanged, after cancellation; else a
// *StreamError.
func (s *Stream[E]) Err() error { return s.err }

// Close stops reading the response, if it is still arriving, and releases
// the connection. After the end of the stream it lets the rest of the body
// (the HTTP framing after [DONE]) be read, for at most 100 ms, so that the
// connection is reused. The stream's Timing is final when Close returns; a stream
// closed before its end records ErrStreamClosed in Timing.Err. Code of the
// caller's that holds the response up and ignores both the context and the
// body's Close (a middleware that does not return, a body whose Read blocks
// on, a hook that blocks) keeps Close waiting 100 ms at most: the stream then
// ends without it, its Done hook runs, and the goroutine held up exits once
// that code returns, with no further event. Close may be called more than
// once and from any goroutine.
func (s *Stream[E]) Close() error {
	s.closed.Do(func() {
		if s.src != nil {
			s.src.close()
		}
	})
	s.ended.Store(true)
	return nil
}

// Timing returns the stream's Timing: a snapshot while the response is
// still arriving, the final Timing (shared with the hooks; do not modify it)
// once it has ended.
func (s *Stream[E]) Timing() *Timing {
	if s.src == nil {
		return new(Timing) // the zero Stream's
	}
	return s.src.timing()
}

// Accumulated returns the completion accumulated from every event Next
// has returned so far, which remains available after the stream has
// ended, cleanly or not: a stream that failed midway keeps its partial
// output. A completion's or a response's is accumulated from its chat
// view: per choice its text (a response's output text or refusal), finish
// reason and usage. Each tool call is accumulated whole and once, also
// from a server that gives every call index 0 with an id of its own
// (Ollama) or sends a call's name again with each delta (MiniMax on NVIDIA
// NIM); Current gives the deltas as the server sent them. Its Usage is
// the last the server reported, with the counts Timing has (see
// Timing.CachedTokens), not a sum of the running totals some servers
// send with every chunk. A chat answer spoken as audio (modalities
// ["text","audio"]) has its message's Audio as the server streamed it:
// its id, the base64 data and the transcript of every piece, one after
// the other, and its expiry; so the message's ToParam refers to the
// audio in the next turn, as a whole response's does. A message's
// reasoning (reasoning_content or reasoning, as the server streamed it)
// and generated images (OpenRouter's images) are in its
// JSON.ExtraFields, as a whole response's are. Its tool calls are typed
// ("function" when the server streamed no type; a custom tool's call
// with its name and input), so that ToParam gives each back, and a
// choice that made calls finished for "tool_calls" even when its server
// said "stop" (Gemini's OpenAI endpoint), unless the server ran them
// itself and sent their results (LocalAI's MCP tools: its word stands),
// and the one choice of a chat or
// completions answer that streamed as many output deltas as the request
// allowed tokens finished for "length" though its server said "stop"
// (one-api's Ollama channel); Timing.FinishReason keeps the server's
// word. A finished message whose text is a model's template markup its
// server did not parse is split as a parsing server would give it:
// PLaMo's tool calls, and gpt-oss's harmony channels (the analysis its
// reasoning, the final channel its text, a call to a function the
// request offered a tool call), so its text may be "" where the chunks
// carried the markup; the chunks, Text and Timing (TTFT at the first
// piece of markup, the output counted over it) keep what the server sent.
func (s *Stream[E]) Accumulated() *openai.ChatCompletionAccumulator { return s.acc.Completion() }

// Text returns the text of the first choice of every event Next has
// returned so far (a response's output text; since the last restart); it
// remains available after the stream has ended, cleanly or not.
func (s *Stream[E]) Text() string {
	return s.acc.Text()
}

// attemptSource is the source of a plain call: one attempt.
type attemptSource struct{ a *attempt }

func (s attemptSource) take(buf []arrived) ([]arrived, error) { return s.a.take(buf) }
func (s attemptSource) timing() *Timing                       { return s.a.timing() }
func (s attemptSource) close()                                { s.a.stop(ErrStreamClosed) }

// restarter is a source that can restart its output.
type restarter interface{ restarted() bool }

// Restarted reports whether the event Current returns is the first of a
// restarted output: the Router dropped the output before it, and
// Accumulated and Text start over from this event. It is always false for
// a Client's stream. A restarted response's first event is the one after
// its response.in_progress (usually a response.output_item.added at
// output_index 0): the response, its id and its sequence numbers go on
// (see Router.NewResponseStreaming).
//
// A Router restarts a call whose stream breaks (stall, MinTPS, reset…)
// after it handed the caller a tool-call delta, when Policy.Continue is
// set: a continuation carries text only, and an assistant message cannot
// hold half a call. The next route is sent the original request
// (AttemptRestart in Timing.Attempts) and its output replaces the
// caller's, so the accumulated tool calls are whole and appear once; a
// caller that rebuilds calls from the deltas drops what it built when
// Restarted is true. The caller's figures stay its own: TTFT to the
// first token it read, E2E to the end it saw, Chunks and OutputTokens
// over every output chunk it read. Without Continue, with FailFast, or
// with no route left, the call ends with the error instead, and a stream
// whose Err is not nil may hold incomplete tool calls that must not be
// run.
func (s *Stream[E]) Restarted() bool {
	if s.ended.Load() || s.pos != 0 || len(s.batch) == 0 {
		return false
	}
	r, ok := s.src.(restarter)
	return ok && r.restarted()
}

// noteRestart starts the accumulated completion over at the first chunk
// of a restarted output; Next calls it before it accumulates a chunk.
func (s *Stream[E]) noteRestart() {
	if s.pos == 0 && s.Restarted() {
		s.acc.Reset()
	}
}

// clientStream starts a Client's streaming call of req: the call is made
// on the caller's goroutine, and the caller reads the body while it waits
// in Next (see handoff.go).
func clientStream[E any](ctx context.Context, c *Client, req codec.Request, opts []option.RequestOption) *Stream[E] {
	spec := attemptSpec{client: &c.oc, name: c.cfg.name, req: req, opts: opts, cfg: &c.cfg, start: time.Now()}
	return newStream[E](attemptSource{callAttempt(ctx, spec, hookEvents(ctx, c.cfg.hooksFor(ctx)))}, req)
}

package tokenpace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace/internal/codec"
	"github.com/tokenpace/tokenpace/internal/sse"
	"github.com/tokenpace/tokenpace/internal/wire"
)

// maxUnreadBytes bounds what the chunks an attempt holds for its consumer
// take decoded (see bound): past it, the reader stops reading the body
// until the consumer takes some (see Stream). A Router's try reaches it
// before its first token only with events that carry no output: its
// caller takes none of them yet, so the try fails (KindTooLarge) instead.
const maxUnreadBytes = 4 << 20

// attemptEvents are the live events of an attempt. They run on the
// goroutine that holds its reader role (see handoff.go), outside its lock,
// one at a time and in arrival order; any may be nil. A watchdog arms its
// timers from them.
type attemptEvents struct {
	// firstToken: the first output-bearing chunk arrived.
	firstToken func(a *attempt, at time.Time)
	// output: an output-bearing chunk of tokens tokens arrived (the first
	// one too).
	output func(a *attempt, at time.Time, tokens int)
	// milestone: a milestone was reached by the chunk that arrived at at.
	milestone func(a *attempt, name string, at time.Time)
	// end: the attempt ended; t is its final Timing. Called exactly once.
	end func(a *attempt, t *Timing)
	// breach: the attempt exceeded the budget its watchdog enforces (see
	// attemptSpec.budget); waited: the deadline passed while the body had
	// yet to end.
	breach func(a *attempt, b BudgetError, waited bool)
}

// attemptSpec is what an attempt sends, and where.
type attemptSpec struct {
	client *openai.Client
	name   string
	req    codec.Request // the request, in its API
	// whole makes the attempt a non-streaming chat completion: its one
	// chunk, the whole response, arrives with the response's last byte.
	whole bool
	opts  []option.RequestOption
	cfg   *config
	start time.Time // when the caller made the call
	// unbounded lifts the bound on unread chunks, for a consumer that
	// takes nothing before the end (a buffered Router call).
	unbounded bool
	// cont is what a continuation carries on; nil for any other attempt.
	cont *codec.Continuation
	// budget is what the attempt's watchdog enforces (startAttempt); the
	// zero value, as for every attempt of a Client, sets no limit.
	budget tryBudget
}

// attempt is one streaming HTTP call to one target. It makes the call
// (openai-go's NewStreaming, retries included) and then reads the response
// body, decoding each event as its bytes arrive, so the timestamps do not
// depend on when the caller reads: a Router's attempt on a goroutine of its
// own, a plain call's attempt on its caller's goroutine while the caller
// waits and on a background reader while it is away (handoff.go). Decoded
// chunks queue up until the consumer takes them; the consumer is woken only
// when it waits.
//
// Its consumer (a Stream, or a Router call) uses only poll, take, cut,
// content, delivered, restartOnly, stop and timing. It is made of its
// parts, each with its own fields: the HTTP exchange (exchange.go), the
// reading of the body and what it says of the answer (reading.go), the
// chunks the consumer has not taken (chunkqueue.go) and the reader role
// (handoff.go).
type attempt struct {
	spec   attemptSpec
	ev     attemptEvents
	parent context.Context // the caller's context
	ctx    context.Context // parent's values; cancelled by stop or with parent
	cancel context.CancelCauseFunc
	unhook func() bool // stops cancelling ctx with parent
	x      exchange    // the HTTP requests
	// w enforces spec.budget; nil without one. Set before the attempt's
	// events begin, so they read it without a lock.
	w *watchdog

	// Owned by the goroutine that calls, then by the holder of the reader
	// role (see handoff.go); stream is written under mu, for stop.
	stream codec.Closer
	rd     reading // the body and what it says of the answer (reading.go)
	// failedEnd: the output ended on a finish reason that says its
	// server failed; the milestones its end completes prove nothing of
	// its health (see outputEnd).
	failedEnd bool

	done chan struct{} // closed once the attempt has ended and its body is closed
	wake chan struct{} // the consumer waits on it; capacity 1

	mu       sync.Mutex
	t        Timing
	deltas   int        // output-bearing choice deltas: OutputTokens when no usage came
	q        chunkQueue // the chunks the consumer has not taken
	final    bool       // t is final (its end event may still run)
	ended    bool       // t is final and the end event has run
	waiting  bool       // the consumer waits on wake
	released bool       // done is closed
	// gone: the attempt was ended while its reader was held up by the
	// caller's code (see abandon); the reader delivers nothing more.
	gone atomic.Bool

	r handoff // the reader role (handoff.go)
}

// sent returns when the attempt's first HTTP request left.
func (a *attempt) sent() time.Time { return a.x.sent() }

// startAttempt starts an attempt; its events ev begin to arrive at once.
// The call and the reading both run on the attempt's own goroutine: what a
// policy that runs several attempts (hedging) needs.
func startAttempt(ctx context.Context, spec attemptSpec, ev attemptEvents) *attempt {
	a := newAttempt(ctx, spec, ev)
	a.w = spec.budget.watch(a.breach)
	a.r.holder = roleBackground
	go func() {
		if a.request() {
			a.openBody()
			for a.step() {
			}
			a.closeBody(a.rd.endedClean())
		}
		a.release()
	}()
	return a
}

// breach reports that a's watchdog found its budget exceeded.
func (a *attempt) breach(b BudgetError, waited bool) { a.ev.breach(a, b, waited) }

// callAttempt makes the call of an attempt on the calling goroutine, as
// openai-go does, and returns once the response headers arrived or the
// call failed. The body is then read by the caller itself while it waits
// in take, and by a background reader while it is away (see handoff.go).
func callAttempt(ctx context.Context, spec attemptSpec, ev attemptEvents) *attempt {
	a := newAttempt(ctx, spec, ev)
	if !a.request() {
		a.release()
		return a
	}
	a.openBody()
	a.r.inline, a.r.holder = true, roleCaller
	a.mu.Lock()
	a.leaveFirst()
	a.mu.Unlock()
	return a
}

// release stops following the caller's context once the attempt has
// ended, and marks it done.
func (a *attempt) release() {
	a.unhook()
	a.mu.Lock()
	if a.released { // abandoned, and released then
		a.mu.Unlock()
		return
	}
	a.released = true
	if a.r.absent != nil {
		a.r.absent.Stop()
	}
	if a.r.resume != nil {
		close(a.r.resume)
	}
	a.mu.Unlock()
	close(a.done)
}

func newAttempt(ctx context.Context, spec attemptSpec, ev attemptEvents) *attempt {
	a := &attempt{
		spec:   spec,
		ev:     ev,
		parent: ctx,
		rd:     newReading(spec.req, spec.cfg.milestones),
		done:   make(chan struct{}),
		wake:   make(chan struct{}, 1),
	}
	a.x.before = a
	if spec.whole {
		a.x.whole = spec.req
	}
	a.x.maxLine = spec.cfg.maxLineBytes
	a.x.closing, a.x.extras, a.x.infill, a.x.sglang = spec.cfg.closing, spec.cfg.extras, spec.cfg.infill, spec.cfg.sglang
	a.x.llamaCppPython, a.x.items = spec.cfg.llamaCppPython, spec.cfg.items
	a.x.declined, a.x.usageAdded, a.x.maxAdded = spec.cfg.refused, codec.AddedUsage(spec.req), codec.AddedMaxTokens(spec.req)
	a.x.prefix, a.x.asked = spec.cont, spec.req
	// A continuation of a turn with reasoning notes its content even if
	// it reasons none itself: the turn's content names its reasoning.
	a.x.turn = spec.cont != nil && spec.cont.Reasoning != ""
	// The attempt's context takes the caller's values and cancellation but
	// is not registered with the caller's context: a clean end then
	// neither leaks it into a long-lived parent nor cancels the request,
	// which would keep the transport from reusing the connection.
	a.ctx, a.cancel = context.WithCancelCause(context.WithoutCancel(ctx))
	a.unhook = context.AfterFunc(ctx, func() { a.cancel(context.Cause(ctx)) })
	a.t = Timing{
		Target:      spec.name,
		Model:       spec.req.Model(),
		Stream:      !spec.whole,
		API:         API(spec.req.API()),
		Start:       spec.start,
		PromptBytes: spec.req.PromptBytes(),
	}
	return a
}

// request makes the HTTP request through openai-go and reports whether there
// is an event stream to read; if not, the attempt has ended.
func (a *attempt) request() bool {
	sent := time.Now()
	// The exchange's middleware, nearest the wire, sees the response the
	// server sent. A middleware of the caller's may answer without
	// sending the request (a cache, a stub), or return another response:
	// the stream reads what openai-go got, taken with WithResponseInto
	// (first, so that a caller's own WithResponseInto wins) or else by a
	// middleware outside the caller's own, which notes the response they
	// return. openai-go runs both on this goroutine, before it returns.
	var answer, outer *http.Response
	outermost := func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		res, err := next(req)
		outer = res
		return res, err
	}
	opts := make([]option.RequestOption, 0, len(a.spec.opts)+3)
	opts = append(opts, option.WithResponseInto(&answer), option.WithMiddleware(outermost))
	opts = append(opts, a.spec.opts...)
	opts = append(opts, option.WithMiddleware(a.x.middleware()))
	if a.spec.whole {
		a.callWhole(opts)
		return false
	}
	what := "middleware"
	var stream codec.Closer
	perr := guard(a.spec.name, &what, func() { stream = a.spec.req.Stream(a.ctx, a.spec.client, opts) })
	a.mu.Lock() // stop, on another goroutine, may close it
	a.stream = stream
	a.mu.Unlock()
	if a.gone.Load() {
		// Ended while a middleware of the caller's held the request up.
		if stream != nil {
			a.closeStream()
		}
		return false
	}
	if perr != nil {
		if a.stream != nil {
			a.closeStream()
		}
		a.end(perr, time.Now())
		return false
	}
	if err := a.stream.Err(); err != nil {
		a.closeStream()
		a.end(a.requestFailure(err), time.Now())
		return false
	}
	res, body := a.x.response()
	got := answer
	if got == nil {
		got = outer
	}
	switch {
	case res == nil && got == nil:
		a.closeStream()
		a.end(a.failure(KindRequest, "a middleware answered without a response", nil), time.Now())
		return false
	case res == nil:
		// A middleware answered without sending the request: its
		// response is stamped as it is read (see reading.open).
		res = got
		a.x.answered(res, sent, time.Now())
	case got != nil:
		// A middleware may have returned another response than the
		// server's: its body is stamped as it is read.
		res = got
	}
	a.rd.respond(res, body)
	return true
}

// openBody prepares the reading of the event stream (see reading.open);
// the attempt is told before each read of the body (see flush).
func (a *attempt) openBody() {
	a.rd.open(a, a.x.drop.pending(), a.spec.cfg.maxLineBytes)
}

// step reads and delivers the next event of the stream. At the end of the
// stream it ends the attempt and returns false; the body is then still
// open (see closeBody). Only the holder of the reader role calls it.
func (a *attempt) step() bool {
	end, at, err := a.readEvent()
	if !end {
		return true
	}
	a.rd.ended(err == nil)
	if err != nil && a.delivered() > 0 {
		a.x.keepDetails() // for a continuation (see keepDetails)
	}
	a.end(err, at)
	return false
}

// closeBody closes the response. After a clean end it first reads what
// remains of the body (the end of the chunked encoding, which may arrive
// just after [DONE]), within limits (see reading.drain), so that the
// transport can reuse the connection: it does not for a body closed
// before its end.
func (a *attempt) closeBody(clean bool) {
	if clean {
		timer := time.AfterFunc(drainWait, func() {
			a.cancel(ErrStreamClosed) // the request's context, for a body whose Close does not end a Read
			a.closeStream()
		})
		a.rd.drain()
		timer.Stop()
	}
	a.closeStream()
}

// closeStream closes openai-go's stream, and with it the response body,
// which a middleware of the caller's may have given: a panic in its
// Close, on a goroutine the caller cannot guard, is dropped, as its
// error is.
func (a *attempt) closeStream() {
	defer func() { _ = recover() }()
	_ = a.stream.Close()
}

// readEvent reads the next event and delivers its chunk. At the end of
// the stream it reports end, with when and how the stream ended (err nil
// after a clean end). A stream that ends after its answer was complete (a
// finish reason for every choice, or a Responses stream's final event)
// ended cleanly, [DONE] or not: some servers never send it; so does one
// whose wait for its end a budget cut (see endAnswer). A proxy's
// notes while it loads the model (see wire.LoadingNotes) are read and
// dropped: nothing is delivered for them.
func (a *attempt) readEvent() (end bool, at time.Time, err error) {
	data, err := a.rd.next()
	if err == io.EOF && a.rd.answeredWhole() || err != nil && a.rd.answered() && context.Cause(a.ctx) == errAnswerEnded {
		at := a.rd.lastRead()
		if !a.rd.answered() {
			a.finishItemsDone()
		}
		return true, at, a.outputEnd(at)
	}
	if err == io.EOF {
		if held := a.rd.heldError(); held != nil {
			return true, a.rd.lastRead(), a.refused(held)
		}
	}
	if err != nil {
		at, err := a.readEnd(err)
		return true, at, err
	}
	at = a.rd.lastRead()
	if a.rd.droppedDue() {
		if a.x.fieldIgnored(data) {
			return true, at, a.requestFailure(errFieldIgnored)
		}
		if a.ctx.Err() != nil && context.Cause(a.ctx) != errAnswerEnded {
			// The call ended while the server was asked whether it kept
			// the suffix (see dropWatch.sglang): the event, which
			// may have been made without it, is not the caller's.
			return true, at, a.failure(KindRequest, "", context.Cause(a.ctx))
		}
	}
	if a.rd.loadingNote(data) {
		// Not the answer's: neither its first token nor a gap in it.
		return false, at, nil
	}
	if err := a.rd.choicesGlued(data); err != nil {
		return true, at, a.failure(KindRequest, "choices_glued", err)
	}
	if isDone(data) {
		return true, at, a.atDone(at)
	}
	ev, size, err := a.rd.decode(data)
	if err != nil {
		if codec.AnswerRejected(err) {
			// The server's verdict on the answer it streamed: that output
			// is restarted, never continued (see codec.AnswerRejected).
			a.mu.Lock()
			a.q.noCont = true
			a.mu.Unlock()
		}
		if a.rd.answered() && codec.IsErrorEvent(err) && !codec.FailedFinish(a.t.FinishReason) && !codec.AnswerRejected(err) {
			// Every choice had finished: the answer is whole, and what
			// failed came after it. LiteLLM's proxy, relaying a
			// completions stream whose usage chunk has no choices, fails
			// on that chunk and sends its error after the finish (see
			// the fixture litellm-completions-usage-chunk-error): only
			// the usage is lost. After a finish that says the answer
			// failed (see codec.FailedFinish), the error says why
			// (Rapid-MLX's schema violation names the failing path), and
			// an error that is the server's verdict on the finished
			// answer (see codec.AnswerRejected) says that it failed:
			// either ends the stream as the server's error.
			return true, at, a.outputEnd(at)
		}
		if codec.IsEventCut(err) {
			return true, at, a.cutEvent(err)
		}
		return true, at, a.refused(err)
	}
	switch a.rd.begins(&ev) {
	case begunAgain:
		return true, at, a.failure(KindTruncated, "answer begun again", nil)
	case begunAnew:
		a.renamed(&ev)
	}
	if codec.DroppedError(ev) {
		return true, at, a.failure(KindTruncated, droppedErrorDetail, nil)
	}
	if ev.ToolCall || ev.Details || ev.Reasoning || ev.Blocks || ev.Items || a.x.turn {
		a.x.note(&ev)
	}
	if err := a.deliver(arrived{Event: ev, at: at, size: size}); err != nil {
		return true, at, err
	}
	if ev.Final {
		// A Responses stream's final event is its last (the API sends no
		// [DONE]): the answer ends there, whatever the body does after
		// it (a keep-alive, a proxy slow to close), and no budget runs
		// on past it.
		return true, at, a.outputEnd(at)
	}
	return false, at, nil
}

// finishItemsDone gives a Responses answer that ended whole with no final
// event, its items all done and completed (see reading.itemsDone), the
// finish of a completed response, "stop" (see codec.finishOf): no event
// said how it ended, yet it ended by itself. OpenRouter closes some
// streams so; AIBrix's gateway resets one whose response.completed spans
// two reads of its upstream (pkg/plugins/gateway/gateway_rsp_body.go,
// processStreamingResponse).
func (a *attempt) finishItemsDone() {
	a.mu.Lock()
	if a.t.FinishReason == "" {
		a.t.FinishReason = "stop"
	}
	a.mu.Unlock()
}

// atDone returns how a stream that sent [DONE] at at ended: the error an
// event held back (see reading.heldError), an n the server ignored, an
// answer cut before it (see reading.cutBeforeDone), or its output's end,
// the finish its server left out delivered first (see reading.atDone).
func (a *attempt) atDone(at time.Time) error {
	if held := a.rd.heldError(); held != nil {
		return a.refused(held)
	}
	if ev, ok := a.rd.atDone(); ok {
		if err := a.deliver(arrived{Event: ev, at: at}); err != nil {
			return err
		}
	}
	if a.rd.nIgnored() {
		return a.failure(KindRequest, nIgnoredDetail, errNIgnored)
	}
	if detail := a.rd.cutBeforeDone(); detail != "" {
		return a.failure(KindTruncated, detail, nil)
	}
	return a.outputEnd(at)
}

// readEnd returns how the stream ended, and when, once its read failed
// with err before its answer was complete: a body that is no event
// stream but one whole answer delivers it and ends cleanly, or fails as a
// read does when it is cut (see wholeInStream), one error object printed
// over many lines is the server's error, any other is KindContentType; an error line is the server's error; a fill-in-the-
// middle request or an n the server ignored is the request's failure;
// anything else, a read failure (see readFailure).
func (a *attempt) readEnd(err error) (time.Time, error) {
	if errors.Is(err, sse.ErrNotEventStream) {
		ev, size, ok, werr := a.rd.wholeInStream()
		var el *sse.ErrorLine
		switch {
		case ok:
			at := a.rd.lastRead()
			if err := a.deliver(arrived{Event: ev, at: at, size: size}); err != nil {
				return at, err
			}
			return at, a.outputEnd(at)
		case errors.Is(werr, sse.ErrDocumentCut):
			return a.rd.lastRead(), a.failure(KindTruncated, "whole answer cut", nil)
		case errors.As(werr, &el):
			return a.rd.lastRead(), a.refused(codec.LineError(el))
		case werr != nil:
			return time.Now(), a.readFailure(werr)
		}
		return time.Now(), a.failure(KindContentType, a.rd.contentType(), nil)
	}
	var el *sse.ErrorLine
	if errors.As(err, &el) {
		return a.rd.lastRead(), a.refused(codec.LineError(el))
	}
	if errors.Is(err, wire.ErrInfillIgnored) {
		return time.Now(), a.requestFailure(err)
	}
	if err == io.EOF && a.rd.nIgnored() {
		return a.rd.lastRead(), a.failure(KindRequest, nIgnoredDetail, errNIgnored)
	}
	return time.Now(), a.readFailure(err)
}

// answered reports whether the attempt's answer is complete (see
// reading.answered).
func (a *attempt) answered() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.rd.answered()
}

// cutWhole returns a whole answer its server cut (see wholeCut), as its
// API sent it: the caller's, with the error, when no route answers. Read
// by the end event, on the attempt's goroutine.
func (a *attempt) cutWhole() any { return a.rd.cutWhole() }

// refused is the error of an event the codec refused: an error the server
// sent (KindErrorEvent, wrapping an *openai.Error with the response's
// status), an event over a bound (KindTooLarge) or a malformed one.
func (a *attempt) refused(err error) error {
	kind, detail, err := refusal(err, a.rd.response())
	return a.failure(kind, detail, err)
}

// deliver records chunk ar, and queues it for the
// consumer. The consumer is woken before the next read of the body (see
// flush), so chunks that arrived in one read cost one wake-up. It returns
// the KindPanic error of a function of the caller's that panicked (a
// milestone predicate, a hook); the chunk is queued all the same.
func (a *attempt) deliver(ar arrived) error {
	if a.gone.Load() {
		return errAbandoned
	}
	at, deltas := ar.at, ar.Outputs
	content, completes, reopens := a.rd.tally(&ar)
	if completes || reopens {
		a.mu.Lock() // answered reads it
		if completes {
			a.rd.markAnswered()
		} else {
			a.rd.reopen()
		}
		a.mu.Unlock()
	}
	perr := a.rd.reachFrom(a.spec.name, content, at)
	first, woke, full := a.queue(ar, deltas)
	tokens := a.rd.count(&ar, deltas)

	if err := a.events(first, deltas > 0, at, tokens); perr == nil {
		perr = err
	}
	if woke {
		// Let the consumer take the chunk now: it would otherwise wait, on
		// a busy machine, until this goroutine blocks in its next read.
		runtime.Gosched()
	}
	if full && !a.r.inlined && perr == nil {
		if a.deltas == 0 && !a.r.inline {
			// A Router's caller takes nothing of a try before its first
			// token: no room would be made.
			return a.failure(KindTooLarge, fmt.Sprintf("events before the first token over %d bytes", maxUnreadBytes), nil)
		}
		// Read on once the consumer has taken some, or the attempt was
		// stopped. (A caller reading in take has taken everything.)
		select {
		case <-a.q.roomMade():
		case <-a.ctx.Done():
		}
	}
	return perr
}

// events runs the live events of the chunk being delivered: its first
// token, its output of tokens tokens, the milestones it reached. They may
// run the caller's hooks: a panic in one ends the attempt with its error.
func (a *attempt) events(first, output bool, at time.Time, tokens int) error {
	ev := &a.ev
	if !(first && ev.firstToken != nil) && !(output && ev.output != nil) && (len(a.rd.reached()) == 0 || ev.milestone == nil) {
		return nil
	}
	what := "FirstToken hook"
	return guard(a.spec.name, &what, func() {
		if first && ev.firstToken != nil {
			ev.firstToken(a, at)
		}
		what = "output event"
		if output && ev.output != nil {
			ev.output(a, at, tokens)
		}
		what = "Milestone hook"
		if ev.milestone != nil {
			for _, n := range a.rd.reached() {
				ev.milestone(a, n.name, n.at)
			}
		}
	})
}

// renamed gives the Timing the id and model of ev, a response created
// under a new id before any output (see answerStart): the answer's, in
// place of the response that failed before it.
func (a *attempt) renamed(ev *codec.Event) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.t.ResponseID = ev.ID()
	if ev.Chunk != nil && ev.Chunk.Model != "" {
		a.t.ResponseModel = ev.Chunk.Model
	}
}

// queue records chunk ar (of deltas output-bearing choice deltas) in the
// Timing and queues it for the consumer. It reports whether it is the
// first token, whether it woke the consumer, and whether the queue is
// full.
func (a *attempt) queue(ar arrived, deltas int) (first, woke, full bool) {
	c, at, size := ar.Chunk, ar.at, ar.size
	a.mu.Lock()
	defer a.mu.Unlock()
	t := &a.t
	if t.FirstChunk.IsZero() {
		t.FirstChunk = at
	}
	if t.ResponseModel == "" {
		t.ResponseModel = c.Model
	}
	if t.ResponseID == "" {
		t.ResponseID = ar.ID()
	}
	if !t.reasoningShown && deltas > 0 {
		t.reasoningShown = codec.ShowsReasoning(&ar.Event)
	}
	if deltas > 0 {
		first = t.OutputChunks == 0
		t.addChunk(at)
		a.deltas += deltas
	}
	for i := range c.Choices {
		if c.Choices[i].Index == 0 && c.Choices[i].FinishReason != "" {
			t.FinishReason = c.Choices[i].FinishReason
		}
	}
	t.setUsage(ar.Usage, ar.HasUsage)
	if e := ar.End; e != nil {
		t.FinishReason = e.Reason
		if e.HasUsage {
			t.trustUsage(codec.Usage{Prompt: e.Input, Cached: e.CachedInput, Output: e.Output, Reasoning: e.Reasoning})
		}
	}
	for _, n := range a.rd.reached() {
		reachedAt(t, n.name, n.at)
	}
	bound := maxUnreadBytes
	if a.spec.unbounded {
		bound = 0
	}
	full = a.q.push(ar, size, bound)
	if t.OutputChunks <= 1 || a.r.inline {
		// Until the first token has been handed over, wake the consumer
		// at once rather than after the rest of the read is decoded; and
		// always a plain call's caller, which then reads on itself.
		woke = a.signal()
	}
	if full {
		a.signal()
	}
	return first, woke, full
}

// outputEnd keeps what the server wants back with the answer's calls
// (see exchange.keepDetails) and completes the milestones that the end of
// the output completes. It returns the KindPanic error of a Milestone hook
// or a milestone predicate that panicked.
func (a *attempt) outputEnd(at time.Time) error {
	a.x.keepDetails()
	names, err := a.rd.reachEnd(a.spec.name, at)
	if err != nil {
		return err
	}
	a.failedEnd = codec.FailedFinish(a.t.FinishReason)
	if len(names) > 0 {
		a.mu.Lock()
		for _, n := range names {
			reachedAt(&a.t, n.name, n.at)
		}
		a.mu.Unlock()
		err = a.events(false, false, at, 0)
	}
	if r := a.t.FinishReason; err == nil && a.failedEnd {
		if a.modelEnded(r) {
			// The server's verdict on an answer its model ended: that
			// output is restarted, never continued past its end.
			a.mu.Lock()
			a.q.noCont = true
			a.mu.Unlock()
		}
		err = a.failure(KindTruncated, finishDetail(r), nil)
	}
	return err
}

// modelEnded reports whether reason, the failed finish of the answer, is
// a verdict on an answer its model ended itself, under the request's
// output limit (see codec.ModelEndedParseError).
func (a *attempt) modelEnded(reason string) bool {
	used := int64(-1)
	if a.t.UsageReported {
		used = int64(a.t.OutputTokens)
	}
	return codec.ModelEndedParseError(reason, used, codec.OutputLimit(a.spec.req))
}

// flush wakes the consumer if it waits and chunks are queued. The reader
// calls it before every read of the body, which may block.
func (a *attempt) flush() {
	if a.r.inlined {
		return // the consumer is the reader
	}
	a.mu.Lock()
	if len(a.q.queued()) > 0 {
		a.signal()
	}
	a.mu.Unlock()
}

// signal wakes the consumer if it waits, and reports whether it did. A
// plain call's caller that waited for a background reader has kept up: it
// gets the reader role back (see readBackground). a.mu is held.
func (a *attempt) signal() bool {
	if !a.waiting {
		return false
	}
	a.waiting = false
	a.wake <- struct{}{}
	if a.r.inline && a.r.holder == roleBackground {
		a.r.handBack.Store(true)
	}
	return true
}

// end makes the Timing final and reports it; the consumer learns of the
// end only after the end event has run, so that a Stream whose Next
// returned false has had every hook called. Only the holder of the reader
// role calls it, once.
func (a *attempt) end(err error, at time.Time) {
	a.mu.Lock()
	if a.final { // abandoned, and ended then
		a.mu.Unlock()
		return
	}
	t := &a.t
	a.x.fill(t, true)
	t.End = at
	t.Err = err
	if !t.UsageReported {
		t.OutputTokens = a.deltas
	}
	a.final = true
	a.r.holder = roleNone
	a.mu.Unlock()
	if a.ev.end != nil {
		what := "Done hook"
		if perr := guard(a.spec.name, &what, func() { a.ev.end(a, t) }); perr != nil {
			a.mu.Lock()
			if t.Err == nil {
				t.Err = perr
			}
			a.mu.Unlock()
		}
	}
	a.mu.Lock()
	a.ended = true
	a.signal()
	a.mu.Unlock()
}

// poll hands over the chunks that arrived and that the consumer has not
// taken, as far as a cut lets them through, giving buf (drained) back for
// reuse. When there are none, done reports that none will come; else wake
// receives once there may be some, and the consumer polls again.
func (a *attempt) poll(buf []arrived) (batch []arrived, done bool, wake <-chan struct{}) {
	a.mu.Lock()
	defer a.mu.Unlock()
	// The attempt signals (under a.mu) only while a.waiting; drop a token
	// left by a wake-up the consumer did not need, so that the next
	// signal never blocks.
	a.waiting = false
	select {
	case <-a.wake:
	default:
	}
	p, closed := a.q.waiting()
	done = a.ended || closed
	if len(p) == 0 {
		if done {
			return nil, true, nil
		}
		a.waiting = true
		return nil, false, a.wake
	}
	return a.q.handOver(p, buf), false, nil
}

// take waits until chunks arrived that the consumer has not taken, or the
// attempt ended, and hands them over, giving buf (drained) back for reuse.
// It returns no chunks only once the attempt has ended, with its error.
func (a *attempt) take(buf []arrived) ([]arrived, error) {
	if a.r.inline {
		return a.takeInline(buf)
	}
	for {
		batch, done, wake := a.poll(buf)
		if len(batch) > 0 {
			return batch, nil
		}
		if done {
			return nil, a.timing().Err
		}
		<-wake
	}
}

// cut stops the attempt with cause (unless it has ended) without waiting:
// from now on only the chunks that arrived so far reach the consumer.
func (a *attempt) cut(cause error) {
	a.mu.Lock()
	a.q.cut(a.t.OutputChunks)
	a.mu.Unlock()
	a.cancel(cause)
}

// errAnswerEnded is the cause that ends the read of a body whose answer
// is complete when a budget's deadline passes (see endAnswer).
var errAnswerEnded = errors.New("the answer was complete; the wait for the end of its body ran past a budget")

// endAnswer ends the attempt, whose answer is complete (every choice
// finished, or a Responses stream's final event came), when a budget's
// deadline passes before its body ends: a server that sends [DONE] late,
// or trickles comments for ever instead, breaches nothing but holds the
// caller no longer. The read under way ends, and the attempt ends
// cleanly, as at the body's end, with the output it delivered.
func (a *attempt) endAnswer() {
	a.cancel(errAnswerEnded)
	a.mu.Lock()
	open := a.stream
	if a.final || open == nil || (a.r.holder == roleCaller && a.r.away) {
		// Ended already, or nobody reads: the next read ends at once.
		a.mu.Unlock()
		return
	}
	a.mu.Unlock()
	// A read may be under way on a body that does not end with the
	// context, as in stop.
	defer func() { _ = recover() }() // a middleware's body
	_ = open.Close()
}

// unread returns what add, appendContent or appendReasoning, takes of
// the chunks that wait for the consumer, as far as a cut lets them
// through.
func (a *attempt) unread(add func(*keptText, []arrived)) string {
	var k keptText
	a.addUnread(&k, add)
	return k.String()
}

// addUnread adds to k what add, appendContent or appendReasoning, takes
// of the chunks that wait for the consumer, as far as a cut lets them
// through: a refinement step among them replaces the text of its run of
// steps in k, which may have begun in what the caller took.
func (a *attempt) addUnread(k *keptText, add func(*keptText, []arrived)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	p, _ := a.q.waiting()
	add(k, p)
}

// lastWaiting returns the last chunk that waits for the consumer and
// reaches it, and false when none does.
func (a *attempt) lastWaiting() (arrived, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	p, _ := a.q.waiting()
	if len(p) == 0 {
		return arrived{}, false
	}
	return p[len(p)-1], true
}

// delivered returns how many output-bearing chunks reach the consumer,
// taken or not.
func (a *attempt) delivered() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.q.delivered(a.t.OutputChunks)
}

// restartOnly reports whether a chunk that reaches the consumer carries a
// tool call, audio or a refusal.
func (a *attempt) restartOnly() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.q.restartOnly()
}

// stop cancels the attempt with cause (unless it has ended) and waits for
// its end; the attempt's end event has run by then. If the caller of a
// plain call holds the reader role while away from take, nobody reads:
// stop ends the attempt itself. An attempt that has ended cleanly is not
// cancelled: the rest of its body is being drained (at most drainBytes
// for drainWait, see closeBody) so that its connection is reused.
func (a *attempt) stop(cause error) {
	a.mu.Lock()
	draining := a.final && a.t.Err == nil
	a.mu.Unlock()
	if !draining {
		a.cancel(cause)
	}
	a.mu.Lock()
	if open := a.stream; !draining && !a.final && open != nil && !(a.r.holder == roleCaller && a.r.away) {
		// A read may be under way on a body that does not end with the
		// context (a middleware's, a custom transport's): close it, as
		// openai-go's Close does, so that the read ends.
		a.mu.Unlock()
		func() {
			defer func() { _ = recover() }() // a middleware's body
			_ = open.Close()
		}()
		a.mu.Lock()
	}
	if a.r.holder == roleCaller && a.r.away {
		// Nobody reads: end the attempt here.
		a.r.holder = roleNone
		a.mu.Unlock()
		a.endStopped()
	} else {
		a.mu.Unlock()
	}
	a.awaitEnd()
}

// timing returns the final Timing once the attempt has ended, else a
// snapshot.
func (a *attempt) timing() *Timing {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.final {
		return &a.t
	}
	t := a.t.clone()
	a.x.fill(t, false)
	return t
}

// failure builds the error an attempt ended with. Cancellation of the
// caller's context passes through (see ctxErr); a stop by the consumer or
// a policy reports its cause.
func (a *attempt) failure(kind ErrorKind, detail string, err error) error {
	if perr := ctxErr(a.parent); perr != nil {
		return perr
	}
	if a.ctx.Err() != nil && context.Cause(a.ctx) != errAnswerEnded {
		return context.Cause(a.ctx)
	}
	return &StreamError{Kind: kind, Target: a.spec.name, Detail: detail, Err: err}
}

// requestFailure builds the error of an attempt whose request failed with
// err, as failure does: KindRequest, or KindTooLarge for a body over its
// bound.
func (a *attempt) requestFailure(err error) error {
	if e := a.failure(KindRequest, "", err); !isKind(e, KindRequest) {
		return e
	}
	return a.x.failure(a.parent, a.spec.name, err)
}

// readFailure classifies an error of the event-stream reader.
func (a *attempt) readFailure(err error) error {
	kind, detail, err := readKind(err)
	if detail == noDone && a.spec.req.API() == codec.APIResponses {
		detail = "no final event" // the Responses API sends no [DONE]
	}
	if kind == KindTruncated && a.rd.emptyBody() {
		detail = "empty body"
	}
	return a.failure(kind, detail, err)
}

// appendReasoning appends the reasoning_content of the first choice of
// chunks to b.
func appendReasoning(b *keptText, chunks []arrived) {
	for i := range chunks {
		if !chunks[i].Reasoning {
			continue
		}
		for j := range chunks[i].Chunk.Choices {
			if ch := &chunks[i].Chunk.Choices[j]; ch.Index == 0 {
				b.write(codec.ReasoningPiece(&ch.Delta))
			}
		}
	}
}

// appendContent appends the content of the first choice of chunks to b;
// a diffusion model's refinement step (codec.Event.Frame) replaces the
// text of its run of steps in b, since it holds the whole text of the run
// so far, and leaves the text before the run (see keptText).
func appendContent(b *keptText, chunks []arrived) {
	for i := range chunks {
		for j := range chunks[i].Chunk.Choices {
			if ch := &chunks[i].Chunk.Choices[j]; ch.Index == 0 {
				if chunks[i].Frame && ch.Delta.Content != "" {
					b.step(ch.Delta.Content)
				} else {
					b.write(ch.Delta.Content)
				}
			}
		}
	}
}

// callWhole makes a non-streaming call (chat, completion or response, as
// the spec says) and ends the attempt: the whole response arrives as one
// chunk when its last byte did, so a TTFT budget bounds the time to the
// whole response.
func (a *attempt) callWhole(opts []option.RequestOption) {
	var ev codec.Event
	var refused, err error
	what := "middleware"
	if perr := guard(a.spec.name, &what, func() { ev, refused, err = a.spec.req.Fetch(a.ctx, a.spec.client, opts) }); perr != nil {
		a.end(perr, time.Now())
		return
	}
	at := a.x.lastRead()
	if at.IsZero() {
		at = time.Now()
	}
	if err != nil {
		res, _ := a.x.response()
		if kind, detail, ferr := a.x.wholeFailure(res); kind != 0 {
			a.end(a.failure(kind, detail, ferr), at)
		} else {
			a.end(a.requestFailure(err), time.Now())
		}
		return
	}
	if refused != nil {
		a.end(a.failure(a.x.wholeRefusal(refused)), at)
		return
	}
	if cut := wholeCut(ev, a.spec.req.Choices(), ""); cut != nil {
		// An answer its server stopped, or one that ignored n: the next
		// route's, if any; kept, for a call that ends with its error.
		a.rd.keepCut(ev.Orig)
		a.end(a.failure(cut.Kind, cut.Detail, cut.Err), at)
		return
	}
	a.x.note(&ev)
	err = a.deliver(arrived{Event: ev, at: at, size: wholeSize(ev)})
	if oerr := a.outputEnd(at); err == nil {
		err = oerr
	}
	a.end(err, at)
}

// wholeSize returns the bytes of a whole response's JSON.
func wholeSize(ev codec.Event) int {
	if r, ok := ev.Orig.(interface{ RawJSON() string }); ok {
		return len(r.RawJSON())
	}
	return 0
}

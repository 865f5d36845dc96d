package tokenpace

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// NewCompletionStreaming starts a streaming completion of params under
// key with start (a Client's or a Router's NewCompletionStreaming, with
// opts), latest wins as with Begin, and with type-ahead reuse: when the
// user has typed what the completion in flight under key was suggesting,
// the new request is not sent; it reuses that completion.
//
// The completion in flight is reused when params differ from its own only
// by their prompt (both one string) and the new prompt is its prompt
// followed by a prefix of the text it has produced so far (the same
// prompt included) with some of it left or still to come: the returned
// stream then hands the caller the rest of that text, from the end of what
// was typed, and the stream it was handed to before ends with
// ErrSuperseded. Otherwise (the typed text diverges, all of a finished
// suggestion was typed, or any other parameter changed) the completion in
// flight is cancelled, as Begin cancels it, and params are sent.
//
// So that it can be reused, a completion outlives its stream: a stream
// that is closed, or whose ctx ends, stops, while its completion runs on
// to its end (max_tokens bounds it) unless a request under key replaces
// it. A completion stays reusable after its end, its text kept, until a
// request under key (Begin's too) replaces it.
//
// The returned stream's Timing is the new request's, as its caller
// waited for it: Start is when NewCompletionStreaming was called; for a
// reused completion Sent is Start too (no request was sent), the first
// chunk is stamped no earlier than Start (so TTFT is zero when the rest
// had already arrived); Chunks are those the stream handed over, stamped
// when they arrived, and End is when the completion's end arrived, or
// when the stream was superseded, closed or its ctx ended, however late
// its caller reads. Target, Model and HTTP are those of the completion
// reused; the usage too when the stream handed over the whole completion
// from its request to its end, else OutputTokens counts the output it
// handed over (the server's count covers text this caller did not wait
// for) and UsageReported is false. The Timing is final once the stream
// has ended, though the completion runs on. The Hooks of start's Client
// see the completion's request once, as usual; the reusing streams are
// not reported to them. Close the stream, as any stream, when done with
// it. A start that panics or returns nil gives a stream that
// ends at once with that error.
func (l *Latest) NewCompletionStreaming(ctx context.Context, key string, params openai.CompletionNewParams,
	start func(context.Context, openai.CompletionNewParams, ...option.RequestOption) *Stream[openai.Completion],
	opts ...option.RequestOption) *Stream[openai.Completion] {
	now := time.Now()
	if ctx.Err() != nil {
		// Nothing is sent for a context already done, as openai-go sends
		// nothing; a completion in flight under key stays, replaced by
		// no newer request.
		sh := &sharedCompletion{changed: make(chan struct{}), cancel: func(error) {}, ended: true, err: ctxErr(ctx)}
		return newStream[openai.Completion](sh.view(ctx, now, 0, false), nil)
	}
	l.mu.Lock()
	old := l.inflight[key]
	if old != nil && old.ta != nil {
		if skip, ok := old.ta.reusable(params); ok {
			v := old.ta.sh.view(ctx, now, skip, true)
			prev := old.ta.last
			old.ta.last = v
			l.mu.Unlock()
			prev.supersede()
			return newStream[openai.Completion](v, nil)
		}
	}
	// The completion outlives the request that starts it, to be reused:
	// it ends at its end or when a request under key replaces it. It
	// holds the key from now on, so that a newer request supersedes it
	// while start waits for the response headers.
	sctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	sh := &sharedCompletion{changed: make(chan struct{}), cancel: cancel, starting: true}
	v := sh.view(ctx, now, 0, false)
	e := &latestEntry{cancel: sh.stop, ta: &typeAhead{params: params, sh: sh, last: v}}
	if l.inflight == nil {
		l.inflight = make(map[string]*latestEntry)
	}
	l.inflight[key] = e
	l.mu.Unlock()
	if old != nil {
		old.supersede()
	}
	var u *Stream[openai.Completion]
	what := "Latest.NewCompletionStreaming's start"
	perr := guard("", &what, func() { u = start(sctx, params, opts...) })
	if perr == nil && u == nil {
		perr = errors.New("tokenpace: Latest.NewCompletionStreaming: start returned no stream")
	}
	sh.mu.Lock()
	sh.u, sh.starting = u, false
	if perr != nil {
		cancel(perr)
		sh.ended, sh.err = true, perr
		close(sh.changed)
		sh.changed = make(chan struct{})
	}
	sh.mu.Unlock()
	if perr == nil {
		go sh.pump()
	}
	return newStream[openai.Completion](v, nil)
}

// supersede cancels what e holds: a request of Begin's, or a type-ahead
// completion and the stream it was handed to.
func (e *latestEntry) supersede() {
	if e.ta != nil {
		e.ta.last.supersede()
	}
	e.cancel(ErrSuperseded)
}

// typeAhead is a completion a Latest may reuse: its params and the
// stream it was last handed to.
type typeAhead struct {
	params openai.CompletionNewParams
	sh     *sharedCompletion
	last   *typeAheadView
}

// reusable reports whether a request of params can reuse the completion,
// and how many bytes of its text the user typed (the new prompt's tail).
func (ta *typeAhead) reusable(params openai.CompletionNewParams) (skip int, ok bool) {
	if !params.Prompt.OfString.Valid() || !ta.params.Prompt.OfString.Valid() {
		return 0, false
	}
	oldPrompt, newPrompt := ta.params.Prompt.OfString.Value, params.Prompt.OfString.Value
	typed, found := strings.CutPrefix(newPrompt, oldPrompt)
	if !found || !sameBesidesPrompt(ta.params, params) {
		return 0, false
	}
	ta.sh.mu.Lock()
	text, ended, failed := ta.sh.text.String(), ta.sh.ended, ta.sh.ended && ta.sh.err != nil
	starting := ta.sh.starting
	ta.sh.mu.Unlock()
	if starting || failed || !strings.HasPrefix(text, typed) || (ended && len(typed) == len(text)) {
		// Diverged, or nothing is left of a finished suggestion.
		return 0, false
	}
	return len(typed), true
}

// sameBesidesPrompt reports whether a and b ask for the same completion
// but for their prompt.
func sameBesidesPrompt(a, b openai.CompletionNewParams) bool {
	a.Prompt, b.Prompt = openai.CompletionNewParamsPromptUnion{}, openai.CompletionNewParamsPromptUnion{}
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}

// sharedCompletion is one completion's stream read by a goroutine of its
// own (pump) into a log of its events, which the streams handed out
// (views) read at their own pace.
type sharedCompletion struct {
	cancel context.CancelCauseFunc

	mu       sync.Mutex
	u        *Stream[openai.Completion] // nil while starting
	starting bool                       // start has not returned yet
	events   []arrived
	text     strings.Builder // the first choice's text so far
	ended    bool
	err      error
	changed  chan struct{} // closed and replaced at each change
}

// pump reads the completion to its end.
func (sh *sharedCompletion) pump() {
	src := sh.u.src
	for {
		batch, err := src.take(nil)
		sh.mu.Lock()
		for _, ar := range batch {
			sh.events = append(sh.events, ar)
			if comp, ok := ar.Orig.(*openai.Completion); ok && len(comp.Choices) > 0 {
				sh.text.WriteString(comp.Choices[0].Text)
			}
		}
		if len(batch) == 0 {
			sh.ended = true
			if err != ErrStreamClosed {
				sh.err = err
			}
		}
		close(sh.changed)
		sh.changed = make(chan struct{})
		sh.mu.Unlock()
		if len(batch) == 0 {
			src.close()
			return
		}
	}
}

// stop cancels the completion.
func (sh *sharedCompletion) stop(cause error) { sh.cancel(cause) }

// view returns a stream of the completion for a request made at now under
// ctx, that skips the first skip bytes of its text; reused says the
// request was not sent. The stream ends when ctx does, at that moment,
// whenever its caller comes back to read it.
func (sh *sharedCompletion) view(ctx context.Context, now time.Time, skip int, reused bool) *typeAheadView {
	vctx, cancel := context.WithCancelCause(ctx)
	v := &typeAheadView{sh: sh, ctx: vctx, cancel: cancel, start: now, skip: skip, reused: reused}
	context.AfterFunc(vctx, func() { v.end(ctxErr(vctx), false) })
	return v
}

// typeAheadView is the source of a stream handed out by
// Latest.NewCompletionStreaming.
type typeAheadView struct {
	sh     *sharedCompletion
	ctx    context.Context
	cancel context.CancelCauseFunc
	start  time.Time
	skip   int  // bytes of text still to skip
	reused bool // the request was not sent: the completion was reused

	mu     sync.Mutex
	pos    int // next event to read
	stamps []time.Time
	deltas int // output-bearing choice deltas handed over
	endAt  time.Time
	atEnd  bool // v ended with the completion, read to its end
	err    error
	done   bool
	final  *Timing // v's Timing once it ended
}

// supersede ends v with ErrSuperseded, unless it has ended already.
func (v *typeAheadView) supersede() { v.cancel(ErrSuperseded) }

// take implements source.
func (v *typeAheadView) take(buf []arrived) ([]arrived, error) {
	for {
		v.sh.mu.Lock()
		events, ended, err, changed := v.sh.events, v.sh.ended, v.sh.err, v.sh.changed
		v.sh.mu.Unlock()
		v.mu.Lock()
		if v.done {
			v.mu.Unlock()
			return nil, v.err
		}
		if v.ctx.Err() != nil {
			v.mu.Unlock()
			v.end(ctxErr(v.ctx), false)
			continue
		}
		out := buf[:0]
		for ; v.pos < len(events); v.pos++ {
			ar, ok := v.trim(events[v.pos])
			if !ok {
				continue
			}
			if n := outputs(ar.Chunk); n > 0 {
				if ar.at.Before(v.start) {
					ar.at = v.start
				}
				v.stamps = append(v.stamps, ar.at)
				v.deltas += n
			}
			out = append(out, ar)
		}
		v.mu.Unlock()
		if len(out) > 0 {
			return out, nil
		}
		if ended {
			v.end(err, true)
			continue
		}
		select {
		case <-changed:
		case <-v.ctx.Done():
		}
	}
}

// end records v's end with err, now, or, with atEnd, at the end of the
// completion, which v read to its end; and makes v's Timing final, as it
// is then, though the completion runs on. The first end counts.
func (v *typeAheadView) end(err error, atEnd bool) {
	v.mu.Lock()
	if v.done {
		v.mu.Unlock()
		return
	}
	v.done, v.err, v.endAt, v.atEnd = true, err, time.Now(), atEnd
	v.mu.Unlock()
	t := v.build()
	v.mu.Lock()
	v.final = t
	v.mu.Unlock()
}

// trim returns ar without the first bytes of text v still skips, and false
// when nothing of it is left to hand over. v.mu is held.
func (v *typeAheadView) trim(ar arrived) (arrived, bool) {
	orig, _ := ar.Orig.(*openai.Completion)
	if v.skip == 0 || orig == nil || len(orig.Choices) == 0 {
		return ar, true
	}
	text := orig.Choices[0].Text
	n := min(v.skip, len(text))
	v.skip -= n
	if n == 0 {
		return ar, true
	}
	comp := *orig
	comp.Choices = append([]openai.CompletionChoice(nil), orig.Choices...)
	comp.Choices[0].Text = text[n:]
	chunk := *ar.Chunk
	chunk.Choices = append([]openai.ChatCompletionChunkChoice(nil), ar.Chunk.Choices...)
	if len(chunk.Choices) > 0 {
		chunk.Choices[0].Delta.Content = text[n:]
	}
	ar.Orig, ar.Chunk = &comp, &chunk
	return ar, comp.Choices[0].Text != "" || comp.Choices[0].FinishReason != "" || len(comp.Choices) > 1
}

// outputs returns how many choices of a completion's chat view carry
// text.
func outputs(c *openai.ChatCompletionChunk) int {
	n := 0
	if c != nil {
		for _, ch := range c.Choices {
			if ch.Delta.Content != "" {
				n++
			}
		}
	}
	return n
}

// timing implements source: the request's Timing, from the completion's;
// final once v ended.
func (v *typeAheadView) timing() *Timing {
	v.mu.Lock()
	t := v.final
	v.mu.Unlock()
	if t != nil {
		return t
	}
	return v.build()
}

// build returns the request's Timing, from the completion's as it is now.
// Its chunks are those v handed over, stamped when they arrived, but no
// earlier than the request; its end, when v ended, or the completion's
// end that v read. Its token counts are the server's only when v handed
// over the whole completion, from its request to its end; else OutputTokens
// counts the output v handed over, so that TPOT is that of the tokens the
// caller waited for.
func (v *typeAheadView) build() *Timing {
	var u Timing
	v.sh.mu.Lock()
	su := v.sh.u
	v.sh.mu.Unlock()
	if su != nil {
		u = *su.Timing().clone()
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	t := u
	t.Start = v.start
	if v.reused {
		t.Sent = v.start
		t.Headers, t.WroteRequest, t.FirstChunk = time.Time{}, time.Time{}, time.Time{}
	}
	t.Chunks, t.OutputChunks, t.LastChunk = nil, 0, time.Time{}
	for _, at := range v.stamps {
		t.addChunk(at)
	}
	if v.reused || !v.atEnd {
		t.UsageReported = false
		t.PromptTokens, t.CachedTokens, t.ReasoningTokens, t.rejected, t.hidden = 0, 0, 0, 0, 0
		t.OutputTokens = v.deltas
	}
	t.Milestones = nil
	t.End, t.Err = v.endAt, v.err
	if v.atEnd && !u.End.IsZero() {
		t.End = u.End
		if t.End.Before(v.start) {
			t.End = v.start
		}
	}
	return &t
}

// close implements source: the stream stops; the completion goes on, to
// be reused.
func (v *typeAheadView) close() {
	v.end(ErrStreamClosed, false)
	v.cancel(ErrStreamClosed)
}

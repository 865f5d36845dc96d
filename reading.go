package tokenpace

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/tokenpace/tokenpace/internal/codec"
	"github.com/tokenpace/tokenpace/internal/milestone"
	"github.com/tokenpace/tokenpace/internal/sse"
	"github.com/tokenpace/tokenpace/internal/wire"
)

// reading is the reading of an attempt's response: its body, stamped as
// it is read and framed into events, their decoding, and what the events
// so far say of the answer: which choices finished and their usage,
// whether the answer is complete, the checks its first event is to pass,
// the milestones its text reached. The holder of the reader role owns it
// (see handoff.go) and calls its methods one at a time; the attempt's mu
// guards terminal, which the consumer reads too (see markAnswered). Only
// its methods touch its fields.
type reading struct {
	req     codec.Request  // the request, in its API
	res     *http.Response // the response read
	body    *arrivalBody   // its body, stamped as it is read
	sr      *sse.Reader    // frames body
	sniffed string         // the Content-Type of a body not labelled an event stream
	dec     codec.Decoder  // decodes the body's events in order
	clean   bool           // the stream ended cleanly

	ms      *milestone.Tracker
	names   []reached // milestones reached by the current chunk
	counted int       // output tokens reported to the output event
	// terminal: the answer is complete (every choice sent its finish
	// reason, or its audio's expiry: see codec.Ends; or a Responses
	// stream its final event), so its end is clean, [DONE] or not.
	terminal        bool
	droppedCheck    bool                   // the first event is to say whether a suffix or an echo was dropped (see exchange.fieldIgnored)
	loading         wire.LoadingNotes      // a proxy's notes while it loads the model, skipped
	choicesCheck    bool                   // the first event is to say whether its server glues the choices together (see choicesGlued)
	finishedChoices codec.Finished         // the choices that sent their finish reason
	choiceUsage     codec.ChoiceUsage      // adds up a usage reported per choice
	entries         codec.ChoiceEntries    // counts the choices' entries, for a usage of one choice (see choicesGlued)
	prompt          codec.PromptCount      // the prompt count, for a later usage that reports none
	otherChoice     bool                   // a choice other than the first came (see nIgnored)
	start           answerStart            // tells an event that begins the answer again or anew (see begins)
	laterStop       codec.LaterStop        // keeps a finish reason against a "stop" sent after it
	everyChunk      codec.EveryChunkFinish // tells a finish reason sent with every chunk, not the choice's end
	usageLast       bool                   // the latest chunk was a usage chunk that ends such an answer if the body ends after it (see codec.EveryChunkFinish.EndsAtUsage)
	frame           string                 // the first choice's latest refinement step, not yet given the milestones (see settled)
	// cut is a whole answer its server cut (see wholeCut), as its API
	// sent it: the caller's, with the error, when no route answers.
	cut any
}

// newReading returns the reading of the answer to req, whose milestones
// are the caller's predicates.
func newReading(req codec.Request, milestones []milestone.Predicate) reading {
	return reading{req: req, ms: milestone.New(milestones), dec: codec.DecoderFor(req)}
}

// respond notes res, the response to read, and body, the exchange's
// stamps of the body the server sent (nil when a middleware answered
// without sending the request). A Content-Type that names no event stream
// is noted: the body is then read as openai-go would, unless it is no
// event stream (see sse.Reader.Sniff).
func (r *reading) respond(res *http.Response, body *arrivalBody) {
	r.res, r.body = res, body
	if ct := res.Header.Get("Content-Type"); !isEventStream(ct) {
		r.sniffed = ct
	}
}

// open prepares the reading of the event stream, whose reads tell before
// first; dropped: its first event is to say whether the request's suffix
// or echo was dropped. A response without a body, which a middleware of the
// caller's may return (a transport never does), has an empty one.
func (r *reading) open(before flusher, dropped bool, maxLine int) {
	if r.res.Body == nil {
		r.res.Body = http.NoBody
	}
	if r.body == nil || r.res.Body != io.ReadCloser(r.body) {
		// A middleware answered, or replaced the body: stamp the body the
		// caller's middleware returned, as it is read.
		r.body = &arrivalBody{ReadCloser: r.res.Body, before: before}
	}
	r.droppedCheck = dropped
	r.loading = wire.LoadingNotes{}
	if r.req.API() != codec.APIChat {
		r.loading = wire.NoLoadingNotes()
	}
	r.choicesCheck, r.entries, r.prompt = r.req.Choices() > 1, codec.ChoiceEntries{}, codec.PromptCount{}
	r.sr = sse.NewReader(r.body, maxLine)
	if r.sniffed != "" {
		r.sr.Sniff()
	}
}

// next returns the data of the next event of the body, or of its first
// line when the body turns out to be a chat stream's JSON lines (see
// jsonLines).
func (r *reading) next() ([]byte, error) {
	data, err := r.sr.Next()
	if errors.Is(err, sse.ErrNotEventStream) && r.jsonLines() {
		return r.sr.Unframed(), nil
	}
	return data, err
}

// response returns the response read.
func (r *reading) response() *http.Response { return r.res }

// contentType returns the Content-Type of a body not labelled an event
// stream, "" for one that is.
func (r *reading) contentType() string { return r.sniffed }

// lastRead returns when the latest read of the body that returned data
// returned.
func (r *reading) lastRead() time.Time { return r.body.last }

// reads returns how many reads of the body returned data.
func (r *reading) reads() int { return r.body.reads }

// emptyBody reports whether no read of the body returned data.
func (r *reading) emptyBody() bool { return r.body.bytes == 0 }

// buffered reports whether the reads of the body brought more than the
// events framed so far: the rest waits in the framer's buffer.
func (r *reading) buffered() bool { return r.body.bytes > r.sr.Consumed() }

// ended notes how the stream ended: cleanly or not.
func (r *reading) ended(clean bool) { r.clean = clean }

// endedClean reports whether the stream ended cleanly.
func (r *reading) endedClean() bool { return r.clean }

// After [DONE], the rest of the body is read (see attempt.closeBody): at
// most drainBytes, for at most drainWait.
const (
	drainBytes = 4 << 10
	drainWait  = 100 * time.Millisecond
)

// drain reads what remains of the body, up to drainBytes.
func (r *reading) drain() {
	_, _ = io.Copy(io.Discard, io.LimitReader(r.body, drainBytes))
}

// droppedDue reports whether the event read is the first, which is to
// say whether the request's suffix or echo was dropped (see
// exchange.fieldIgnored).
func (r *reading) droppedDue() bool {
	if !r.droppedCheck {
		return false
	}
	r.droppedCheck = false
	return true
}

// loadingNote reports whether data is a proxy's note while it loads the
// model (see wire.LoadingNotes): not the answer's, neither its first
// token nor a gap in it.
func (r *reading) loadingNote(data []byte) bool { return r.loading.Skip(data) }

// choicesGlued returns why data, the first event of an answer to a
// request for several choices, is refused: it is LocalAI's, which glues
// the choices together (see errChoicesGlued), or LMDeploy's to a request
// of several prompts, which glues the prompts' completions together (see
// errPromptsGlued); nil for any other. One of mistral.rs's, whose usage
// counts the output of one choice, starts the count of the choices'
// entries (see codec.ChoiceEntries).
func (r *reading) choicesGlued(data []byte) error {
	if !r.choicesCheck {
		return nil
	}
	r.choicesCheck = false
	switch {
	case wire.MistralRsAnswer(data):
		r.entries.Start(r.req.Choices())
	case wire.LocalAIAnswer(data):
		return errChoicesGlued
	case r.req.Prompts() > 1 && wire.LMDeployAnswer(data):
		return errPromptsGlued
	}
	return nil
}

var doneData = []byte("[DONE]")

// isDone reports whether data is the stream's [DONE].
func isDone(data []byte) bool { return bytes.HasPrefix(data, doneData) }

// atDone returns the event a decoder holds back until [DONE], if any (see
// codec.DoneFinisher), or until a [DONE] that ends the body with no line
// break (see codec.BareDoneFinisher).
func (r *reading) atDone() (codec.Event, bool) {
	if f, ok := r.dec.(codec.BareDoneFinisher); ok && r.sr.Unterminated() {
		if ev, ok := f.AtBareDone(); ok {
			return ev, true
		}
	}
	if f, ok := r.dec.(codec.DoneFinisher); ok {
		return f.AtDone()
	}
	return codec.Event{}, false
}

// heldError returns the server's error the decoder holds back, if any
// (see codec.ErrorHolder): the stream's error once its body has ended.
func (r *reading) heldError() error {
	if h, ok := r.dec.(codec.ErrorHolder); ok {
		return h.HeldError()
	}
	return nil
}

// decode decodes data, the next event, and returns it with what it counts
// for in the bound on unread chunks (see codec.Cost). An error event the
// server named so is its error (see codec.NamedError).
func (r *reading) decode(data []byte) (ev codec.Event, size int, err error) {
	size, err = codec.Cost(r.req, data)
	if err != nil {
		return ev, size, err
	}
	ev, err = r.dec.Decode(data)
	if r.sr.ErrorEvent() {
		err = codec.NamedError(data, err)
	}
	return ev, size, err
}

// tally notes what chunk ar says of the answer: the choices that sent
// their finish reason (a "stop" after another reason is that reason: see
// codec.LaterStop), and a usage reported per choice, which it makes
// ar's sum (see codec.ChoiceUsage), or without its prompt count, which it
// gives the one reported before (see codec.PromptCount). It returns the content of the first
// choice, whether ar completes the answer (see markAnswered), and
// whether ar brought output to a choice finished before, whose finish
// was then not the answer's end (see codec.EveryChunkFinish, reopen).
func (r *reading) tally(ar *arrived) (content string, completes, reopens bool) {
	c := ar.Chunk
	r.laterStop.Keep(c)
	r.entries.Add(c)
	if ar.HasUsage {
		ar.Usage = r.choiceUsage.Add(c, ar.Usage, r.finishedChoices.Count(), r.req.Choices(), r.req.Prompts())
		ar.Usage = r.entries.Usage(c, ar.Usage)
		ar.Usage = r.prompt.Usage(ar.Usage)
	}
	terminal := ar.Final
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index == 0 {
			content = ch.Delta.Content
		} else {
			r.otherChoice = true
		}
		ends, reopened := r.everyChunk.Ends(ch, &r.finishedChoices)
		reopens = reopens || reopened
		if ends && r.finishedChoices.Add(ch.Index, r.req.Choices()) {
			terminal = true
		}
	}
	r.usageLast = r.everyChunk.EndsAtUsage(len(c.Choices), ar.HasUsage, &r.finishedChoices, r.req.Choices())
	if ar.Frame {
		content = r.settled(content, c)
	}
	return content, terminal && (!r.terminal || reopens), reopens && !terminal
}

// markAnswered notes that the answer is complete. The attempt's mu is
// held: the consumer reads it (see attempt.answered).
func (r *reading) markAnswered() { r.terminal = true }

// reopen notes that the answer marked complete is not: a choice sent
// output after its finish reason (see codec.EveryChunkFinish). The
// attempt's mu is held, as for markAnswered.
func (r *reading) reopen() { r.terminal = false }

// answered reports whether the answer is complete (see terminal): what
// remains of its body is its end ([DONE], a usage chunk), no more output.
// Its holder reads it as it likes; others hold the attempt's mu.
func (r *reading) answered() bool { return r.terminal }

// answeredWhole reports whether the answer was whole when its body ended:
// complete, the body's last chunk a usage chunk that ends an answer whose
// every chunk sent a finish (see usageLast), or a Responses stream's items
// all done (see itemsDone).
func (r *reading) answeredWhole() bool { return r.terminal || r.usageLast || r.itemsDone() }

// itemsDone reports whether a Responses stream that ends without its
// final event answered whole all the same: every output item it added
// was done, completed (see codec.ResponseStream.ItemsDone).
func (r *reading) itemsDone() bool {
	rs, ok := r.dec.(*codec.ResponseStream)
	return ok && rs.ItemsDone()
}

// cutBeforeDone reports whether an answer that ends with [DONE] was cut
// short before it: no choice sent its finish reason and no final event
// came. A relay writes [DONE] so when its upstream breaks: one-api (the
// songquanpeng/one-api relay and its forks) logs "error reading stream:
// unexpected EOF" and ends the stream as it ends a finished one, and it
// drops an upstream's error event (a chunk without choices or usage)
// before its [DONE], so an answer that failed before its first token
// reads as an empty one; new-api (QuantumNous/new-api, a one-api fork)
// writes before it a usage chunk of its own, the output tokens counted
// from the text it relayed, when its upstream sent none, as a cut one
// does not. Bare openai-go returns the cut text, or none, with a nil
// error (seen live, through both relays in front of llama-server). Every
// server sends a finish reason with a finished answer, an empty one too:
// a usage chunk says nothing of whether the answer was finished. So is
// an answer of several choices where some choice never sent one: a relay
// that asks its upstream for one choice (Laisky's one-api, which makes a
// chat answer of the Responses API) answers n = 2 with one. It returns
// the Detail of the KindTruncated error, "" for a finished answer.
func (r *reading) cutBeforeDone() string {
	switch {
	case r.answeredWhole():
		return ""
	case r.everyChunk.Seen() && r.finishedChoices.Count() >= r.req.Choices():
		return "" // every choice sent its finish reason, with output (see codec.EveryChunkFinish)
	case r.finishedChoices == (codec.Finished{}):
		return "no finish_reason"
	}
	return choicesDetail(r.finishedChoices.Count(), r.req.Choices())
}

// nIgnored reports whether the stream, at its end, answered a request
// for several choices with its first alone, whole: a server that ignores
// n (see errNIgnored).
func (r *reading) nIgnored() bool {
	return oneChoiceOfMany(r.req.Choices(), !r.otherChoice, r.finishedChoices.Count() == 1)
}

// count returns how many output tokens chunk ar, of deltas output-bearing
// choice deltas, added, and counts them. A server that streams usage with
// every chunk says how many.
func (r *reading) count(ar *arrived, deltas int) int {
	tokens := deltas
	if usage := ar.Usage; ar.HasUsage && deltas > 0 && usage.Output >= 0 && usage.Output <= codec.MaxUsageTokens {
		tokens = max(tokens, int(usage.Output)-r.counted)
	}
	r.counted += tokens
	return tokens
}

// reachFrom adds content, the first choice's text of the chunk that
// arrived at at, to the milestones' tracker. It returns the KindPanic
// error of a milestone predicate of target's caller that panicked.
func (r *reading) reachFrom(target, content string, at time.Time) error {
	r.names = r.names[:0]
	if content == "" || !r.ms.Pending() {
		return nil
	}
	what := "milestone predicate"
	return guard(target, &what, func() { r.ms.Add(content, at, r.reach) })
}

// reachEnd completes, at at, the milestones that the end of the output
// completes, a refinement step's text not given them yet among it (see
// settled), and returns those reached, and the KindPanic error of a
// milestone predicate of target's caller that panicked.
func (r *reading) reachEnd(target string, at time.Time) ([]reached, error) {
	perr := r.reachFrom(target, r.frame, at)
	r.frame = ""
	if perr != nil {
		return nil, perr
	}
	r.ms.End(at, r.reach)
	return r.names, nil
}

// reach notes a milestone reached by the chunk being delivered.
func (r *reading) reach(name string, at time.Time) {
	r.names = append(r.names, reached{name, at})
}

// reached returns the milestones reached by the chunk being delivered.
func (r *reading) reached() []reached { return r.names }

// keepCut keeps orig, a whole answer its server cut, as its API sent it
// (see wholeCut).
func (r *reading) keepCut(orig any) { r.cut = orig }

// cutWhole returns the whole answer its server cut, nil if none was.
func (r *reading) cutWhole() any { return r.cut }

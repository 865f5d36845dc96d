package simulate

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// responder turns a request's emissions into its response: chunks of
// per tokens, the role-only chunk, the finish, usage and [DONE] events, or
// the whole JSON body of a non-streaming request, with the mid-stream
// faults of its plan applied.
type responder struct {
	out      *output
	f        format
	plan     faultPlan
	cancel   func()     // frees the engine's slot, once finished
	d        *driver    // the engine that emits the reply
	id       uint64     // the request's id in it
	finished bool       // the reply is complete, or its slot freed
	text     *replyText // the whole reply, unless it is tool calls
	echo     string     // text sent before the reply's first token (echo)
	calls    *toolReply // the whole reply of tool calls, or nil
	n        int        // tokens of the reply
	finish   string     // its finish_reason
	stream   bool
	usage    usage // prompt tokens and cached tokens; completion counted here
	usageOn  bool  // stream_options.include_usage
	per      int   // tokens per chunk
	roleSent bool

	lp     *logprober     // draws the tokens' log-probabilities; nil unless asked
	lps    []tokenLogprob // the entries of the chunk being made
	allLps []tokenLogprob // every entry, for a non-streaming response
	toks   []string       // the tokens of the chunk being made

	pos     int             // tokens emitted so far
	pending int             // tokens emitted but not yet sent
	chunks  int             // output-bearing chunks sent
	whole   strings.Builder // the text of a non-streaming response
	buf     []byte
	wire    []byte // a chunk in chunked framing, for direct sends
}

// handle takes emission e, due at at, and sends what it completes. It
// reports whether the response is complete, and false ok when it ended
// early: the client went away, or a fault ended it.
func (r *responder) handle(e Emission, at time.Time) (done, ok bool) {
	r.buf = r.buf[:0]
	if r.advance(e) || (e.Done && r.pending > 0) {
		if r.plan.strikes(r.chunks) {
			a, ok := r.plan.atChunk(r.out, r.f, at, r.stream)
			switch {
			case !ok:
				return false, false
			case a == dropStream:
				// The connection drops where the fault strikes; the
				// engine's slot is freed first.
				r.cancel()
				r.out.reset(at)
			case a == endStream:
				r.out.truncate(at)
				return false, false
			}
		}
		r.chunk()
	}
	if !e.Done {
		if len(r.buf) > 0 && r.stream {
			// Flushed once the handler has taken every emission due
			// (serve), so chunks of a stream that fell behind leave
			// together.
			return false, r.out.queue(at, r.buf)
		}
		return false, true
	}
	r.usage.completion = r.pos
	if !r.stream {
		var body []byte
		if r.calls != nil {
			body = r.f.wholeCalls(nil, r.calls.sent(), r.finish, r.usage)
		} else {
			body = r.f.whole(nil, r.whole.String(), r.finish, r.usage, r.allLps)
		}
		body = r.plan.wholeBody(body)
		return true, r.out.whole(at, body)
	}
	r.buf = r.f.finish(r.buf, r.finish)
	if r.usageOn {
		r.buf = r.f.usage(r.buf, r.usage)
	}
	r.buf = r.f.done(r.buf)
	return true, r.out.send(at, r.buf) && r.out.end(at)
}

// advance counts the tokens of emission e and reports whether they
// complete a chunk.
func (r *responder) advance(e Emission) bool {
	if e.First {
		r.usage.cached = e.CachedTokens
	}
	k := min(e.Tokens, r.n-r.pos)
	r.pos += k
	r.pending += k
	return r.pending > 0 && r.pending >= r.per
}

// chunk appends the chunk of the pending tokens to r.buf (the role-only
// chunk first, if it is still due) or, unless streaming, to the whole
// text.
func (r *responder) chunk() {
	if !r.roleSent {
		r.buf = r.f.role(r.buf)
		r.roleSent = true
	}
	r.chunks++
	switch {
	case r.calls != nil:
		calls := r.calls.take(r.pending)
		if r.stream {
			r.buf = r.f.toolCalls(r.buf, calls)
		}
	case r.lp != nil:
		text := r.takeScored()
		if r.stream {
			r.buf = r.f.token(r.buf, text, r.lps)
		} else {
			r.whole.WriteString(text)
			r.allLps = append(r.allLps, r.lps...)
		}
	case r.stream:
		r.buf = r.f.token(r.buf, r.echo+r.text.take(r.pending), nil)
	default:
		r.whole.WriteString(r.echo)
		r.whole.WriteString(r.text.take(r.pending))
	}
	r.echo = ""
	r.pending = 0
}

// takeScored takes the pending tokens, after the echoed prompt if it is
// still due, and returns their text; r.lps holds their log-probability
// entries (the echoed prompt's first token has none, as OpenAI gives it).
func (r *responder) takeScored() string {
	r.lps, r.toks = r.lps[:0], r.toks[:0]
	if r.echo != "" {
		for i, tok := range splitTokens(r.echo) {
			if i == 0 {
				r.lps = append(r.lps, tokenLogprob{token: tok, none: true})
			} else {
				r.lps = append(r.lps, r.lp.entry(tok))
			}
		}
	}
	r.toks = r.text.takeTokens(r.toks, r.pending)
	for _, tok := range r.toks {
		r.lps = append(r.lps, r.lp.entry(tok))
	}
	return r.echo + strings.Join(r.toks, "")
}

// sendDirect implements directSender for a streaming response without
// faults, network delay or buffering, handed over to the driver: it writes
// the chunk e completes, in chunked framing, without waiting.
func (r *responder) sendDirect(e Emission, at time.Time) []byte {
	if !r.advance(e) {
		return nil
	}
	r.buf = r.buf[:0]
	r.chunk()
	r.wire = appendChunk(r.wire[:0], r.buf)
	r.out.late.observe(at)
	return r.out.direct.tryWrite(r.wire)
}

// serve runs g through the network model, the faults and the engine, and
// writes the response. sent is when the request's headers were read: the
// client sent it rtt/2 earlier on the modelled network.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, sent time.Time, g *generation) {
	ctx := r.Context()
	index := s.next.Add(1) - 1
	var header string
	if s.cfg.faultHeader {
		header = r.Header.Get(FaultHeader)
	}
	fault, err := s.cfg.faults.pick(index, header)
	if err != nil {
		writeError(w, badRequest("", err.Error()))
		return
	}
	plan := faultPlan{fault}
	half := s.cfg.rtt / 2
	arrived := sent.Add(half) // when the server sees the request
	out, stop := s.clientOutput(ctx, w, g.stream)
	defer stop()
	if !waitUntil(ctx, arrived) || !plan.beforeHeaders(out, arrived) || !s.rateLimited(out, arrived, g) {
		return
	}
	if g.background {
		s.serveBackground(ctx, index, g, out, plan, arrived)
		return
	}
	rs, sink, ok := s.schedule(index, g, out, plan, arrived)
	if !ok {
		return
	}
	defer rs.release()
	if g.stream && s.cfg.roleFirst {
		if !out.send(arrived, rs.f.role(nil)) {
			return
		}
	} else if !out.writeHeaders(arrived) {
		return
	}
	defer func() {
		if sink.close() {
			// Half a chunk is on the wire: drop the connection rather
			// than end the body after it.
			panic(http.ErrAbortHandler)
		}
	}()
	if dc := directConnOf(r, &s.direct); dc != nil && g.stream && half == 0 && !s.cfg.buffering && fault.Kind == NoFault {
		// Headers are flushed: the driver may write the chunks, with no
		// deadline to refuse them.
		out.disarm()
		out.direct = dc
		sink.handOver(rs)
	}
	s.pump(ctx, rs, sink)
}

// schedule makes the reply of request index (the text, or tool calls)
// and adds it to the engine, which then emits its tokens to the sink it
// returns. false: the server is shutting down, and out says so.
func (s *Server) schedule(index uint64, g *generation, out *output, plan faultPlan, arrived time.Time) (*responder, *sink, bool) {
	id := index + 1
	var text *replyText
	calls, finish := s.toolCalls(index, id, g)
	n := 0
	if calls != nil {
		n = len(calls.pieces)
	} else {
		text, finish = s.text(index, g)
		n = text.n
	}
	d := g.model.driver
	sink, ok := d.add(&Request{
		ID:            id,
		PromptTokens:  g.prompt.tokens,
		PrefixKey:     g.prompt.prefixKey,
		PrefixTokens:  g.prompt.prefixTokens,
		OutputTokens:  n,
		NextPrefixKey: g.prompt.nextKey,
	}, arrived)
	if !ok {
		out.fail(arrived, &apiError{status: http.StatusServiceUnavailable, message: "server is shutting down"}, 0)
		return nil, nil, false
	}
	rs := &responder{
		out:      out,
		plan:     plan,
		text:     text,
		echo:     g.echo,
		calls:    calls,
		n:        n,
		finish:   finish,
		stream:   g.stream,
		usage:    usage{prompt: g.prompt.tokens},
		usageOn:  g.includeUsage || g.api == apiResponses,
		per:      s.cfg.chunkTokens,
		roleSent: s.cfg.roleFirst || g.api == apiText,
		d:        d,
		id:       id,
	}
	rs.cancel = func() { rs.finished = true; d.cancel(id) }
	if g.logprobs.on && text != nil {
		rs.lp = newLogprober(g.logprobs, s.cfg.seed, g.seedStream())
		rs.lps, rs.allLps = []tokenLogprob{}, []tokenLogprob{}
	}
	switch g.api {
	case apiChat:
		rs.f = newChatFormat("chatcmpl-"+strconv.FormatUint(id, 10), s.cfg.created, g.model.name, g.includeUsage)
	case apiText:
		offset := 0
		if g.echo == "" {
			offset = utf8.RuneCountInString(g.lastMessage)
		}
		rs.f = newTextFormat("cmpl-"+strconv.FormatUint(id, 10), s.cfg.created, g.model.name, g.includeUsage, offset)
	default:
		rs.f = newResponsesFormat(id, s.cfg.created, g.model.name, g.responseSettings)
		if g.store {
			s.stored.put(responseID(id), storedTurn{hash: g.prompt.hash, key: g.prompt.nextKey, tokens: g.prompt.tokens + n})
		}
	}
	return rs, sink, true
}

// release frees the engine's slot of a response that did not finish.
func (r *responder) release() {
	if !r.finished {
		r.d.cancel(r.id)
	}
}

// pump sends what the engine emits to rs until the response is complete,
// the client went away or the server closed.
func (s *Server) pump(ctx context.Context, rs *responder, sink *sink) {
	out, d := rs.out, rs.d
	var batch []Emission
	var rest []byte
	for !rs.finished {
		select {
		case <-sink.ready:
		case <-ctx.Done():
			return
		case <-d.done:
			// The server closed: drop the connection, as a server
			// going down would.
			rs.finished = true
			panic(http.ErrAbortHandler)
		}
		batch, rest = sink.take(batch)
		if len(rest) > 0 {
			out.arm()
			if !out.direct.write(rest) {
				// Dropped, or gone, after part of a chunk.
				panic(http.ErrAbortHandler)
			}
		}
		for _, e := range batch {
			var ok bool
			rs.finished, ok = rs.handle(e, d.epoch.Add(e.At))
			if !ok {
				return
			}
		}
		if !out.flush() {
			return
		}
		if out.direct != nil && !rs.finished {
			out.disarm()
		}
		sink.idle()
	}
}

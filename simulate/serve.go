package simulate

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"
)

// chat serves POST /v1/chat/completions.
func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	sent := time.Now()
	var req chatRequest
	if e := s.decodeBody(w, r, &req); e != nil {
		writeError(w, e)
		return
	}
	maxTokens, param := req.MaxTokens, "max_tokens"
	if req.MaxCompletionTokens != nil {
		maxTokens, param = req.MaxCompletionTokens, "max_completion_tokens"
	}
	g, e := s.newGeneration(&req.commonRequest, maxTokens, param)
	if e == nil && len(req.Messages) == 0 {
		e = badRequest("messages", "messages must hold at least one message")
	}
	if e == nil {
		g.stop, e = parseStop(req.Stop)
	}
	if e != nil {
		writeError(w, e)
		return
	}
	g.prompt = chatPrompt(req.Messages)
	g.lastMessage = req.Messages[len(req.Messages)-1].text
	g.chat = true
	s.serve(w, r, sent, &g)
}

// completions serves POST /v1/completions.
func (s *Server) completions(w http.ResponseWriter, r *http.Request) {
	sent := time.Now()
	var req completionRequest
	if e := s.decodeBody(w, r, &req); e != nil {
		writeError(w, e)
		return
	}
	g, e := s.newGeneration(&req.commonRequest, req.MaxTokens, "max_tokens")
	var ids int
	if e == nil {
		g.lastMessage, ids, e = parsePrompt(req.Prompt)
	}
	if e == nil {
		g.stop, e = parseStop(req.Stop)
	}
	if e != nil {
		writeError(w, e)
		return
	}
	g.prompt = textPrompt(g.lastMessage)
	if ids > 0 {
		g.prompt.tokens = ids
	}
	s.serve(w, r, sent, &g)
}

// newGeneration checks the fields both endpoints share and returns the
// generation they describe; the caller adds the prompt and the stop
// sequences. maxTokens is the request's limit, named param in errors.
func (s *Server) newGeneration(c *commonRequest, maxTokens *int, param string) (generation, *apiError) {
	m, want, e := s.checkCommon(c.Model, maxTokens, param, c.N)
	return generation{
		model:        m,
		maxTokens:    want,
		seed:         c.Seed,
		stream:       c.Stream,
		includeUsage: c.StreamOptions != nil && c.StreamOptions.IncludeUsage,
	}, e
}

// generation is one validated request on its way through the engine.
type generation struct {
	model        *model
	maxTokens    int
	stop         []string
	prompt       promptInfo
	lastMessage  string
	seed         *int64
	stream       bool
	includeUsage bool
	chat         bool // chat completions, else legacy completions
}

// text decides the reply of request index and its finish reason.
func (s *Server) text(index uint64, g *generation) (*replyText, string) {
	word := g.prompt.hash
	if g.seed != nil {
		word = uint64(*g.seed)
	}
	rng := rand.New(rand.NewPCG(s.cfg.seed, word))
	n, finish := g.maxTokens, "length"
	if f := s.cfg.outputTokens; f != nil {
		if d := max(f(rng), 1); d < n {
			n, finish = d, "stop"
		}
	}
	var tokens []string
	if f := s.cfg.reply; f != nil {
		if text, ok := f(ReplyInfo{Index: index, Model: g.model.name, Prompt: g.lastMessage}); ok {
			tokens, finish = splitTokens(text), "stop"
			if len(tokens) > g.maxTokens {
				tokens, finish = tokens[:g.maxTokens], "length"
			}
		}
	}
	if tokens == nil {
		if len(g.stop) == 0 {
			return generatedText(rng, n), finish
		}
		tokens = generate(rng, n)
	}
	if cut, ok := cutAtStop(tokens, g.stop); ok {
		tokens, finish = cut, "stop"
	}
	if len(tokens) == 0 {
		// The engine emits at least one token; this one is empty.
		tokens = []string{""}
	}
	return heldText(tokens), finish
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
	half := s.cfg.rtt / 2
	arrived := sent.Add(half) // when the server sees the request
	out := newOutput(ctx, w, half, s.cfg.buffering, g.stream, &s.late)
	if !waitUntil(ctx, arrived) {
		return
	}
	if st := fault.status(); st != 0 {
		var retry time.Duration
		if fault.Kind == FaultRateLimit {
			retry = fault.duration()
		}
		out.fail(arrived, &apiError{status: st, message: fmt.Sprintf("simulated fault: %s", fault.Kind), code: fault.code()}, retry)
		return
	}
	if fault.Kind == FaultSlowHeaders {
		out.headersAt = arrived.Add(fault.duration())
	}
	text, finish := s.text(index, g)
	id := index + 1
	d := g.model.driver
	sink, ok := d.add(&Request{
		ID:           id,
		PromptTokens: g.prompt.tokens,
		PrefixKey:    g.prompt.prefixKey,
		PrefixTokens: g.prompt.prefixTokens,
		OutputTokens: text.n,
	}, arrived)
	if !ok {
		out.fail(arrived, &apiError{status: http.StatusServiceUnavailable, message: "server is shutting down"}, 0)
		return
	}
	finished := false
	defer func() {
		if !finished {
			d.cancel(id)
		}
	}()

	rs := &responder{
		out:      out,
		fault:    fault,
		text:     text,
		finish:   finish,
		stream:   g.stream,
		usage:    usage{prompt: g.prompt.tokens},
		usageOn:  g.includeUsage,
		per:      s.cfg.chunkTokens,
		roleSent: s.cfg.roleFirst || !g.chat,
	}
	if g.chat {
		rs.f = newChatFormat("chatcmpl-"+strconv.FormatUint(id, 10), s.cfg.created, g.model.name, g.includeUsage)
	} else {
		rs.f = newTextFormat("cmpl-"+strconv.FormatUint(id, 10), s.cfg.created, g.model.name, g.includeUsage)
	}
	if g.stream && s.cfg.roleFirst {
		if !out.send(arrived, rs.f.role(nil)) {
			return
		}
	} else if !out.writeHeaders(arrived) {
		return
	}

	var batch []Emission
	for !finished {
		select {
		case <-sink.ready:
		case <-ctx.Done():
			return
		case <-d.done:
			// The server closed: drop the connection, as a server
			// going down would.
			finished = true
			panic(http.ErrAbortHandler)
		}
		batch = sink.take(batch)
		for _, e := range batch {
			if e.First {
				rs.usage.cached = e.CachedTokens
			}
			if rs.fault.Kind == FaultReset && rs.due(e) {
				// The connection drops where the fault strikes; the
				// engine's slot is freed first.
				finished = true
				d.cancel(id)
				out.reset(d.epoch.Add(e.At))
			}
			var ok bool
			finished, ok = rs.handle(e, d.epoch.Add(e.At))
			if !ok {
				return
			}
		}
	}
}

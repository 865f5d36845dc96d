package simulate

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// chat serves POST /v1/chat/completions.
func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	sent := time.Now()
	var req chatRequest
	if e := decodeBody(w, r, s.cfg.maxBodyBytes, &req); e != nil {
		writeError(w, e)
		return
	}
	maxTokens, param := req.MaxTokens, "max_tokens"
	if req.MaxCompletionTokens != nil {
		maxTokens, param = req.MaxCompletionTokens, "max_completion_tokens"
	}
	m, want, e := s.checkCommon(req.Model, maxTokens, param, req.N)
	if e == nil && len(req.Messages) == 0 {
		e = badRequest("messages", "messages must hold at least one message")
	}
	stop, se := parseStop(req.Stop)
	if e == nil {
		e = se
	}
	if e != nil {
		writeError(w, e)
		return
	}
	g := generation{
		model:        m,
		maxTokens:    want,
		stop:         stop,
		prompt:       chatPrompt(req.Messages),
		lastMessage:  req.Messages[len(req.Messages)-1].text,
		seed:         req.Seed,
		stream:       req.Stream,
		includeUsage: req.StreamOptions != nil && req.StreamOptions.IncludeUsage,
		chat:         true,
	}
	s.serve(w, r, sent, &g)
}

// completions serves POST /v1/completions.
func (s *Server) completions(w http.ResponseWriter, r *http.Request) {
	sent := time.Now()
	var req completionRequest
	if e := decodeBody(w, r, s.cfg.maxBodyBytes, &req); e != nil {
		writeError(w, e)
		return
	}
	m, want, e := s.checkCommon(req.Model, req.MaxTokens, "max_tokens", req.N)
	var text string
	var ids int
	if e == nil {
		text, ids, e = parsePrompt(req.Prompt)
	}
	stop, se := parseStop(req.Stop)
	if e == nil {
		e = se
	}
	if e != nil {
		writeError(w, e)
		return
	}
	p := textPrompt(text)
	if ids > 0 {
		p.tokens = ids
	}
	g := generation{
		model:        m,
		maxTokens:    want,
		stop:         stop,
		prompt:       p,
		lastMessage:  text,
		seed:         req.Seed,
		stream:       req.Stream,
		includeUsage: req.StreamOptions != nil && req.StreamOptions.IncludeUsage,
	}
	s.serve(w, r, sent, &g)
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

// text decides the reply of request index: its tokens and finish reason.
func (s *Server) text(index uint64, g *generation) ([]string, string) {
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
	scripted := false
	if f := s.cfg.reply; f != nil {
		text, ok := f(ReplyInfo{Index: index, Model: g.model.name, Prompt: g.lastMessage})
		if ok {
			scripted = true
			tokens, finish = splitTokens(text), "stop"
			if len(tokens) > g.maxTokens {
				tokens, finish = tokens[:g.maxTokens], "length"
			}
		}
	}
	if !scripted {
		tokens = generate(rng, n)
	}
	if cut, ok := cutAtStop(tokens, g.stop); ok {
		tokens, finish = cut, "stop"
	}
	if len(tokens) == 0 {
		// The engine emits at least one token; this one is empty.
		tokens = []string{""}
	}
	return tokens, finish
}

// serve runs g through the network model, the faults and the engine, and
// writes the response. sent is when the request's headers were read: the
// client sent it rtt/2 earlier on the modelled network.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, sent time.Time, g *generation) {
	ctx := r.Context()
	index := s.next.Add(1) - 1
	fault, err := s.cfg.faults.pick(index, r.Header.Get(FaultHeader))
	if err != nil {
		writeError(w, badRequest("", err.Error()))
		return
	}
	half := s.cfg.rtt / 2
	arrived := sent.Add(half) // when the server sees the request
	out := newOutput(ctx, w, half, s.cfg.buffering, g.stream)
	if !waitUntil(ctx, arrived) {
		return
	}
	if st := fault.status(); st != 0 {
		var retry time.Duration
		if fault.Kind == FaultRateLimit {
			retry = fault.duration()
		}
		out.fail(arrived, &apiError{status: st, message: fmt.Sprintf("simulated fault: %s", fault.Kind), code: strconv.Itoa(st)}, retry)
		return
	}
	if fault.Kind == FaultSlowHeaders {
		out.headersAt = arrived.Add(fault.duration())
	}
	tokens, finish := s.text(index, g)
	id := index + 1
	d := g.model.driver
	sink, ok := d.add(&Request{
		ID:           id,
		PromptTokens: g.prompt.tokens,
		PrefixKey:    g.prompt.prefixKey,
		PrefixTokens: g.prompt.prefixTokens,
		OutputTokens: len(tokens),
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

	var f format
	if g.chat {
		f = newChatFormat("chatcmpl-"+strconv.FormatUint(id, 10), s.cfg.created, g.model.name, g.includeUsage)
	} else {
		f = newTextFormat("cmpl-"+strconv.FormatUint(id, 10), s.cfg.created, g.model.name, g.includeUsage)
	}
	var buf []byte
	if g.stream && s.cfg.roleFirst {
		buf = f.role(buf[:0])
		if !out.send(arrived, buf) {
			return
		}
	} else if !out.writeHeaders(arrived) {
		return
	}

	var (
		pos      int // tokens emitted so far
		pending  int // tokens emitted but not sent
		chunks   int // output-bearing chunks sent
		cached   int
		roleSent = s.cfg.roleFirst || !g.chat
	)
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
			at := d.epoch.Add(e.At)
			if e.First {
				cached = e.CachedTokens
			}
			k := min(e.Tokens, len(tokens)-pos)
			pos += k
			pending += k
			if pending < s.cfg.chunkTokens && !e.Done {
				continue
			}
			if pending > 0 {
				if chunks == fault.After {
					switch fault.Kind {
					case FaultReset:
						finished = true // the slot is freed below
						d.cancel(id)
						out.reset(at)
					case FaultStall:
						out.stallUntil = at.Add(fault.duration())
					case FaultMalformed:
						buf = append(buf[:0], "data: {\"id\":\"malformed\",\"choices\":[{\"delta\":{\"content\":\n\n"...)
						if g.stream && !out.send(at, buf) {
							return
						}
					}
				}
				buf = buf[:0]
				if !roleSent {
					buf = f.role(buf)
					roleSent = true
				}
				text := tokens[pos-1]
				if pending > 1 {
					text = strings.Join(tokens[pos-pending:pos], "")
				}
				pending = 0
				chunks++
				if g.stream {
					buf = f.token(buf, text)
					if !e.Done && !out.send(at, buf) {
						return
					}
				}
			}
			if !e.Done {
				continue
			}
			finished = true
			u := usage{prompt: g.prompt.tokens, completion: pos, cached: cached}
			if !g.stream {
				body := f.whole(nil, strings.Join(tokens, ""), finish, u)
				if fault.Kind == FaultMalformed {
					body = body[:len(body)/2]
				}
				out.whole(at, body)
				return
			}
			buf = f.finish(buf, finish)
			if g.includeUsage {
				buf = f.usage(buf, u)
			}
			buf = append(buf, doneEvent...)
			if out.send(at, buf) {
				out.end(at)
			}
		}
	}
}

package simulate

import (
	"fmt"
	"math/rand/v2"
)

// newGeneration checks the fields both endpoints share and returns the
// generation they describe; the caller adds the prompt and the stop
// sequences. maxTokens is the request's limit, named param in errors.
func (s *Server) newGeneration(c *commonRequest, maxTokens *int, param string) (generation, *apiError) {
	m, want, e := s.checkCommon(c.Model, maxTokens, param, c.N)
	if e == nil {
		e = c.check()
	}
	if e == nil && c.StreamOptions != nil && !c.Stream {
		// As OpenAI and vLLM answer: the options of a stream are no
		// option of a whole response.
		e = badRequest("stream_options", "The 'stream_options' parameter is only allowed when 'stream' is enabled.")
	}
	return generation{
		model:        m,
		maxTokens:    want,
		maxGiven:     maxTokens != nil,
		seed:         c.Seed,
		stream:       c.Stream,
		includeUsage: c.StreamOptions != nil && c.StreamOptions.IncludeUsage,
	}, e
}

// generation is one validated request on its way through the engine.
type generation struct {
	model        *model
	maxTokens    int
	maxGiven     bool // the request set its output limit
	stop         []string
	prompt       promptInfo
	lastMessage  string
	seed         *int64
	stream       bool
	includeUsage bool
	api          api
	suffix       string   // legacy completions: the FIM suffix
	echo         string   // legacy completions: the prompt echoed before the reply
	tools        []string // names of the tools the request offers
	logprobs     logprobAsk
	// responseSettings is what a Response object reports of the
	// request's settings (Responses API only).
	responseSettings []byte
	// store: the response is kept for a later turn to name (Responses
	// API only; its store, true unless set false).
	store bool
	// background: the response runs apart from its request's connection
	// (Responses API only; see responses_background.go).
	background bool
}

// api is the endpoint a generation came through.
type api int

const (
	apiChat      api = iota // /v1/chat/completions
	apiText                 // /v1/completions
	apiResponses            // /v1/responses
)

// info describes request index to the scripts.
func (g *generation) info(index uint64) ReplyInfo {
	return ReplyInfo{Index: index, Model: g.model.name, Prompt: g.lastMessage, Suffix: g.suffix, Tools: g.tools}
}

// toolCalls returns the tool-call reply a WithToolCalls script gives
// request index (id id), with its finish reason, or nil.
func (s *Server) toolCalls(index, id uint64, g *generation) (*toolReply, string) {
	if s.cfg.toolCalls == nil || g.api == apiText {
		return nil, ""
	}
	calls := s.cfg.toolCalls(g.info(index))
	if len(calls) == 0 {
		return nil, ""
	}
	t := &toolReply{calls: calls, pieces: callPieces(calls), id: id}
	if len(t.pieces) > g.maxTokens {
		t.pieces = t.pieces[:g.maxTokens]
		return t, "length"
	}
	return t, "tool_calls"
}

// text decides the reply of request index and its finish reason.
func (s *Server) text(index uint64, g *generation) (*replyText, string) {
	rng := rand.New(rand.NewPCG(s.cfg.seed, g.seedStream()))
	n, finish := g.maxTokens, "length"
	if f := s.cfg.outputTokens; f != nil {
		if d := max(f(rng), 1); d < n {
			n, finish = d, "stop"
		}
	}
	var tokens []string
	if f := s.cfg.reply; f != nil {
		if text, ok := f(g.info(index)); ok {
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

// seedStream is the request's own part of the seed of its random draws: its
// seed if it set one, else its prompt's hash.
func (g *generation) seedStream() uint64 {
	if g.seed != nil {
		return uint64(*g.seed)
	}
	return g.prompt.hash
}

// fitContext refuses a generation whose prompt and output limit exceed the
// model's context, as vLLM does (400, with the same words); without an
// output limit of the request's, the output is cut to what fits.
func (g *generation) fitContext() *apiError {
	ctx := g.model.context
	if ctx <= 0 {
		return nil
	}
	prompt := g.prompt.tokens
	if !g.maxGiven && prompt < ctx {
		g.maxTokens = min(g.maxTokens, ctx-prompt)
		return nil
	}
	if prompt+g.maxTokens <= ctx {
		return nil
	}
	param, where := "messages", "messages"
	switch g.api {
	case apiText:
		param, where = "prompt", "prompt"
	case apiResponses:
		param, where = "input", "input"
	}
	return badRequest(param, fmt.Sprintf("This model's maximum context length is %d tokens. However, you requested %d tokens (%d in the %s, %d in the completion). Please reduce the length of the %s or completion.",
		ctx, prompt+g.maxTokens, prompt, where, g.maxTokens, where))
}

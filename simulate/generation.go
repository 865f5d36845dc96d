package simulate

import "math/rand/v2"

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

package tokenpace

import (
	"errors"
	"fmt"
	"time"

	"github.com/sony/gobreaker/v2"
)

// Router sends chat completions along an ordered list of routes with
// latency budgets, fallback, hedging, continuation, circuit breakers, rate
// limits and a quality gate: the policy order is
// Fallback(Hedge(Budget(Breaker(Limiter(call))))). Each call returns one
// Stream whatever happens behind it; its Timing lists the Attempts, which
// route won and why each other one ended, and the Breaches.
//
// What a model signed with its tool calls (Claude's thinking blocks
// through LiteLLM or Portkey, Gemini 3's thought signatures, OpenRouter's
// reasoning_details) is given back to that server and model alone. So a
// chat call that ends with the results of an assistant turn's tool calls
// (tool messages, perhaps followed by a user message with the images a
// tool returned) goes first to the route whose server and model signed
// that turn (the one that answered it, a fallback say), the others after
// it in the Router's order: Claude with thinking refuses those results
// without its blocks, 400 "Expected `thinking` or `redacted_thinking`,
// but found `tool_use`", and Gemini 3 gets Google's sentinel and loses
// that step's reasoning. Its breaker and admission apply as to any
// route: skipped, the call falls back as usual. A new user message after
// the model's answer keeps the Router's order (see Affinity for a
// session's route).
//
// A Router is safe for concurrent use. Its routes' breakers, limiters and
// TTFT models are shared by all its calls.
type Router struct {
	c      *Client
	pol    Policy
	routes []*route
	byName map[string]*route
	// affinity remembers each session's route (Policy.Affinity).
	affinity *affinityTable
	// stored remembers the route that made each response a call was
	// given (see storedRoute), up to Affinity.Sessions of them.
	stored *affinityTable
}

// NewRouter returns a Router that sends c's requests along routes in
// order, under policy p. Hooks, milestones and limits of c apply to every
// call. It fails when there are no routes, two share a name, or a budget
// or limit is invalid.
func NewRouter(c *Client, p Policy, routes ...Route) (*Router, error) {
	if c == nil {
		return nil, errors.New("tokenpace: NewRouter needs a Client")
	}
	if len(routes) == 0 {
		return nil, errors.New("tokenpace: NewRouter needs at least one route")
	}
	if err := p.Budget.validate(); err != nil {
		return nil, err
	}
	if p.Hedge.After < 0 || p.Hedge.Percentile < 0 || p.Hedge.Percentile > 1 || p.Hedge.MinSamples < 0 || p.Hedge.Max < 0 {
		return nil, fmt.Errorf("tokenpace: invalid hedge %+v", p.Hedge)
	}
	r := &Router{c: c, pol: p, byName: make(map[string]*route, len(routes)), affinity: newAffinityTable(p.Affinity), stored: newAffinityTable(p.Affinity)}
	for _, rt := range routes {
		if _, dup := r.byName[rt.Name]; dup {
			return nil, fmt.Errorf("tokenpace: route %q given twice", rt.Name)
		}
		if err := rt.Budget.validate(); err != nil {
			return nil, err
		}
		if err := rt.Limit.validate(); err != nil {
			return nil, err
		}
		x := &route{
			Route:  rt,
			budget: rt.Budget.merge(p.Budget),
			lim:    newLimiter(rt.Limit),
		}
		if rt.Breaker != nil {
			x.br, x.brCode = guardedBreaker{rt.Breaker}, true
		}
		if rt.Limit.FollowServer {
			x.server = &serverLimits{}
		}
		if x.br == nil {
			if b := newBreaker(rt.Name, p.Breaker); b != nil {
				x.br = b
			}
		}
		r.routes = append(r.routes, x)
		r.byName[rt.Name] = x
	}
	return r, nil
}

// route returns the route named target, or nil.
func (r *Router) route(target string) *route { return r.byName[target] }

// BreakerState returns the state of target's circuit breaker, and false
// when target is unknown or has none: breakers are disabled
// (BreakerSettings.Disabled) and the route brings no Route.Breaker of its
// own.
func (r *Router) BreakerState(target string) (gobreaker.State, bool) {
	rt := r.route(target)
	if rt == nil || rt.br == nil {
		return 0, false
	}
	return rt.br.State(), true
}

// PredictTTFT returns the TTFT the Router expects of target for a request
// with promptTokens uncached prompt tokens, from the streaming requests it
// has seen there (non-streaming ones are learnt apart: the time to their
// whole answer would skew it) (a least-squares line of TTFT against prompt tokens that favours
// recent requests), and false when target is unknown or has no data yet.
func (r *Router) PredictTTFT(target string, promptTokens int) (time.Duration, bool) {
	rt := r.route(target)
	if rt == nil {
		return 0, false
	}
	return rt.pred.Predict(promptTokens)
}

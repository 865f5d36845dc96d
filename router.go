package tokenpace

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/sony/gobreaker/v2"
)

// Router sends chat completions along an ordered list of routes with
// latency budgets, fallback, hedging, continuation, circuit breakers, rate
// limits and a quality gate: the policy order is
// Fallback(Hedge(Budget(Breaker(Limiter(call))))). Each call returns one
// Stream whatever happens behind it; its Timing lists the Attempts, which
// route won and why each other one ended, and the Breaches.
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
	r := &Router{c: c, pol: p, byName: make(map[string]*route, len(routes)), affinity: newAffinityTable(p.Affinity)}
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
			br:     rt.Breaker,
			lim:    newLimiter(rt.Limit),
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

// NewStreaming starts a streaming chat completion along the Router's
// routes, as Client.NewStreaming does for one target, and returns at once:
// Next waits for the first token of whichever route wins. Params and
// options are those of openai-go; each route may replace the model and
// add options.
//
// Stream.Err reports how the call ended: nil, the caller's context error
// unchanged, a *BudgetError (ErrBudgetExceeded), a *ValidationError
// (ErrInvalidOutput), a *SkipError when no route could be tried, or the
// last route's *StreamError.
//
// The Router owns retries: a route with another after it is sent without
// openai-go's retries (option.WithMaxRetries(0)), so a failure moves on at
// once; the Router retries the same route itself (AttemptRetry) only when
// its error response asked for a wait (Retry-After, recorded in
// Timing.HTTP) that, with the route's learnt TTFT, still fits the route's
// TTFT budget. The last route keeps the client's retry options.
//
// The call's Timing has one Attempt per route tried or skipped, in start
// order, even when there is only one, each with its own figures. The
// call's figures are the caller's: Sent is when the call's first request
// left, so Queue holds only the limiter wait before it; Chunks holds the
// arrival time of every output chunk the caller received, across
// continuations, so TTFT runs to the first token the caller received and
// ITL and TPOT cover the stream it read; End is the end the caller saw.
// Target, Model and the response data are those of the route that
// answered last; Headers and FirstChunk those of the first route whose
// output the caller received. The Client's Hooks see the call once:
// FirstToken for the winner (its TTFT the caller's), Milestone for the
// routes the caller reads, Done once with the final Timing.
//
// Tool calls: a stream that breaks after it handed the caller a tool-call
// delta is never continued; with Policy.Continue it restarts on the next
// route from the original request (AttemptRestart), and Stream.Restarted
// tells the caller on the first chunk of the new output, from which
// Accumulated starts over. Otherwise it ends with its error, and its tool
// calls may be incomplete. See Stream.Restarted.
func (r *Router) NewStreaming(ctx context.Context, params openai.ChatCompletionNewParams, opts ...option.RequestOption) *Stream {
	c := newCall(ctx, r, withUsage(params), opts)
	c.begin()
	return newStream(c)
}

// BreakerState returns the state of target's circuit breaker, and false
// when target is unknown or breakers are disabled.
func (r *Router) BreakerState(target string) (gobreaker.State, bool) {
	rt := r.route(target)
	if rt == nil || rt.br == nil {
		return 0, false
	}
	return rt.br.State(), true
}

// PredictTTFT returns the TTFT the Router expects of target for a request
// with promptTokens uncached prompt tokens, from the requests it has seen
// there (a least-squares line of TTFT against prompt tokens that favours
// recent requests), and false when target is unknown or has no data yet.
func (r *Router) PredictTTFT(target string, promptTokens int) (time.Duration, bool) {
	rt := r.route(target)
	if rt == nil {
		return 0, false
	}
	return rt.pred.predict(promptTokens)
}

// TTFTPercentile returns the nearest-rank q-quantile (0 < q ≤ 1) of the
// last 256 TTFTs observed at target, and false when target is unknown, has
// no data yet or q is out of range.
func (r *Router) TTFTPercentile(target string, q float64) (time.Duration, bool) {
	rt := r.route(target)
	if rt == nil || !(q > 0 && q <= 1) {
		return 0, false
	}
	d, n := rt.pred.percentile(q)
	return d, n > 0
}

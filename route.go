package tokenpace

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// Route is a Target with its own policy data: budget, rate limit and
// quality gate.
type Route struct {
	Target
	// Budget overrides the Policy's budget field by field; a zero field
	// inherits.
	Budget Budget
	// Limit is the route's client-side rate limit; the zero value sets
	// none.
	Limit Limit
	// Validator checks the route's finished output; nil means the
	// Policy's.
	Validator Validator
	// Breaker, if set, is the route's circuit breaker instead of one made
	// from Policy.Breaker, which then does not apply to this route: for
	// instance a breaker shared by replicas (package fleet). Nil means
	// the route's own breaker.
	Breaker Breaker
	// Limiter, if set, is the route's rate limit instead of Limit: for
	// instance a limit shared by replicas (package fleet). Nil means
	// Limit.
	Limiter Limiter
}

// Policy says what a Router does when a route is slow, failing or wrong.
// Its zero value sends every call to the first route whose breaker is
// closed, falls back to the next route when one fails before its first
// token, and enforces no budget.
type Policy struct {
	// Budget applies to every route (see Route.Budget); the zero value
	// sets no limit.
	Budget Budget
	// FailFast ends the call with a *BudgetError at the first breach
	// instead of moving to the next route; false (the zero value) moves
	// on: a breach before the first token falls back, one after it ends
	// the call unless Continue is set.
	FailFast bool
	// Hedge starts the next route in parallel while the first has not
	// produced a token; the zero value never hedges.
	Hedge Hedge
	// Continue resumes a stream that stalls (Gap), falls under MinTPS or
	// breaks after it has produced tokens on the next route, with the
	// output so far as an assistant prefix; the caller's stream goes on
	// seamlessly. False (the zero value) ends the call with the error.
	Continue bool
	// ContinuePrompt is the user message that follows the assistant prefix
	// of a continuation; "" means "Continue exactly where your previous
	// message stops. Do not repeat any of it."
	ContinuePrompt string
	// Breaker configures each route's circuit breaker; the zero value
	// gives the defaults of BreakerSettings.
	Breaker BreakerSettings
	// Validator checks every finished output (see Route.Validator); nil
	// means none.
	Validator Validator
	// RetryInvalid retries a call whose output a validator rejected on the
	// next route. The caller then receives each route's output only once
	// it has been validated: no streaming (Hooks.FirstToken is not
	// called; Timing keeps the arrival times), but no rejected text
	// either; a breach at any point falls back, as nothing reached the
	// caller yet. False (the zero value) streams as usual and reports a
	// rejection in Stream.Err.
	RetryInvalid bool
}

// Hedge configures hedged requests: when the running attempt has not
// produced its first token after a delay, the next route starts in
// parallel; the first to produce an output token wins and the others are
// cancelled at once, their tokens never reaching the caller.
type Hedge struct {
	// After is the fixed delay before hedging; zero means no fixed delay.
	After time.Duration
	// Percentile, if in (0, 1], sets the delay to that quantile of the
	// TTFTs observed recently at the first route (0.95 for p95) once it
	// has MinSamples of them; until then After applies. Zero means After
	// only.
	Percentile float64
	// MinSamples is how many TTFTs the percentile needs; zero means 20.
	MinSamples int
	// Max is how many hedged attempts may start; zero means 1.
	Max int
}

func (h Hedge) enabled() bool { return h.After > 0 || h.Percentile > 0 }

// CallPolicy overrides a Router's Policy for one call; see
// ContextWithCallPolicy.
type CallPolicy struct {
	// Budget overrides every route's budget field by field; a zero field
	// keeps the route's.
	Budget Budget
	// FailFast, when true, ends the call at the first breach (see
	// Policy.FailFast); false keeps the Policy's setting.
	FailFast bool
	// Validator replaces the routes' validators; nil keeps them.
	Validator Validator
}

type callPolicyKey struct{}

// ContextWithCallPolicy returns a context under which Router calls use p
// on top of their Policy.
func ContextWithCallPolicy(ctx context.Context, p CallPolicy) context.Context {
	return context.WithValue(ctx, callPolicyKey{}, p)
}

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
}

// route is a Route with its runtime state.
type route struct {
	Route
	budget Budget // merged with the Policy's
	br     Breaker
	lim    *limiter
	pred   predictor
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
	r := &Router{c: c, pol: p, byName: make(map[string]*route, len(routes))}
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
func (r *Router) NewStreaming(ctx context.Context, params openai.ChatCompletionNewParams, opts ...option.RequestOption) *Stream {
	c := newCall(ctx, r, withUsage(params), opts)
	c.begin()
	return newStream(c)
}

// SkipError says why a route was not tried: its breaker was open
// (ErrCircuitOpen) or admission turned it away (ErrAdmission).
type SkipError struct {
	// Target names the route.
	Target string
	// Err is ErrCircuitOpen or ErrAdmission.
	Err error
}

// Error implements error.
func (e *SkipError) Error() string {
	return fmt.Sprintf("tokenpace: target %s skipped: %v", e.Target, e.Err)
}

// Unwrap returns the cause.
func (e *SkipError) Unwrap() error { return e.Err }

package tokenpace

import (
	"sync/atomic"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace/internal/ttft"
)

// Route is one place a request can go (an OpenAI-compatible endpoint and
// the model to ask there) with its own policy data: budget, rate limit and
// quality gate.
type Route struct {
	// Name identifies the route in Timing, errors and metrics; the zero
	// value "" is allowed for a single route.
	Name string
	// Client sends the requests; nil means the Client's own.
	Client *openai.Client
	// Model replaces the request's model; "" keeps it.
	Model string
	// Options are appended to the request's own options (a base URL, an API
	// key, headers); nil adds none.
	Options []option.RequestOption
	// Budget overrides the Policy's budget field by field; a zero field
	// inherits.
	Budget Budget
	// Limit is the route's client-side rate limit; the zero value sets
	// none.
	Limit Limit
	// Validator checks the route's finished output (see
	// Policy.Validator); nil means the Policy's.
	Validator func(text string) error
	// Breaker, if set, is the route's circuit breaker instead of one made
	// from Policy.Breaker, which then does not apply to this route: for
	// instance a breaker shared by replicas (package fleet). Nil means
	// the route's own breaker. A panic in its Allow skips the route (the
	// attempt's error is KindPanic); one in its done or State is dropped.
	Breaker Breaker
	// Limiter, if set, is the route's rate limit instead of Limit: for
	// instance a limit shared by replicas (package fleet). Nil means
	// Limit. A panic in its Reserve skips the route, as a Breaker's in
	// Allow does; one in the cancel it gives is dropped.
	Limiter Limiter
}

// route is a Route with its runtime state.
type route struct {
	Route
	budget Budget // merged with the Policy's
	br     Breaker
	// brCode: br is the caller's (Route.Breaker), which the call waits
	// for as code of the caller's (see callerCode).
	brCode bool
	lim    *limiter
	pred   ttft.Model // streaming calls' time to first token
	// whole is the time to the whole answer of non-streaming calls
	// (Router.New…), which admission and hedging read for them: apart
	// from pred, which it would skew.
	whole ttft.Model
	// server follows the rate limits its server reports
	// (Limit.FollowServer); nil when it does not.
	server *serverLimits
	// ramp deals the route a rising share of calls after its breaker
	// closed (BreakerSettings.Ramp).
	ramp ramp
	// host is the server ("host:port", as the request's URL names it)
	// the route's latest ended call sent to; nil before any (see
	// signedRoute).
	host atomic.Pointer[string]
}

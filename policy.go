package tokenpace

import (
	"context"
	"time"
)

// Policy says what a Router does when a route is slow, failing or wrong.
// Its zero value sends every call to the first route whose breaker is
// closed, falls back to the next route when one fails before its first
// token, and enforces no budget. A response that ends cleanly without an
// output token (an empty answer, a content filter) counts as failing
// before its first token while a route is left; when no other route
// answers, the caller gets it as it is, as from a Client.
//
// The routing policies added to the order
// Fallback(Hedge(Budget(Breaker(Limiter(call))))): Affinity only reorders
// the routes of a call before Fallback walks them; Probation sits between
// Hedge and Budget, turning a breach of a held stream into one before its
// first token; Breaker.Ramp belongs to the Breaker layer (a ramping route
// is skipped as an open one is) and Route.Limit.FollowServer to the
// Limiter layer (a wait for the server's reset is admission's, within
// the TTFT budget). Each is off in its zero value.
type Policy struct {
	// Budget applies to every route (see Route.Budget); the zero value
	// sets no limit.
	Budget Budget
	// FailFast ends the call with a *BudgetError at the first breach
	// instead of moving to the next route (a hedge that already runs may
	// still answer; if it fails too, the call ends with that first
	// breach, and no other route is tried); false (the zero value) moves
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
	// A stream that handed the caller a tool call, audio or a refusal, or
	// that answers several choices (n > 1, or a completion of several
	// prompts), or a completion that echoes its prompt, or a structured
	// answer (response_format, or a Responses text.format, of type
	// json_schema or json_object, which the next route would begin anew;
	// or a constraint set in the request beside the typed parameters,
	// with param.SetExtraFields, option.WithJSONSet or a middleware:
	// vLLM's guided_json, guided_regex, guided_grammar, guided_choice and
	// structured_outputs (the first four inside NVIDIA NIM's nvext too),
	// llama.cpp's json_schema and grammar, SGLang's regex and ebnf, a response_format of SGLang's and vLLM's type
	// structural_tag, of TGI's json or regex or of Fireworks' grammar; one the
	// server applies on its own cannot be seen), is restarted instead (a continuation carries one choice's text
	// only, after the prompt): the next route
	// answers from the start and Stream.Restarted tells the caller (see
	// Router). When no route can carry the output on, the call ends with
	// the error that broke it. Continue never applies to a completion whose prompt is not one string, nor
	// to Router.New, nor once the caller has received as many output
	// chunks as max_tokens: the output is as long as asked, and the call
	// ends with the error.
	// A Responses stream in background mode (background true, store not
	// false) that broke is first resumed instead, once, at its own route:
	// GET /responses/{id}?stream=true&starting_after=N picks it up after
	// the last event that reached the caller, nothing generated again
	// (an AttemptContinuation with the ResponseID it resumes); if that
	// fails before its first token (a server without background mode
	// answers 404), the call continues as above. A background response
	// whose try the Router stops for another (a hedge that lost, a
	// breach it fell back or continued from) is cancelled at its server
	// once that try ends; one the caller stops (Close, its context) runs
	// on, its id that Attempt's ResponseID.
	Continue bool
	// ContinuePrompt is the user message that follows the assistant prefix
	// of a continuation; "" means "Continue exactly where your previous
	// message stops. Do not repeat any of it."
	ContinuePrompt string
	// Breaker configures each route's circuit breaker; the zero value
	// gives the defaults of BreakerSettings.
	Breaker BreakerSettings
	// Validator is a quality gate: it checks the finished text of the
	// first choice (across continuations) when a stream ends cleanly, and
	// returns an error to reject it. A rejection counts against the route
	// like a budget breach (its circuit breaker, Timing.Err,
	// OutcomeInvalid), so goodput counts only validated outputs; the call
	// ends with a KindInvalid *StreamError. It should be quick: the call
	// waits for it before it ends, as long as its caller does (until the
	// call's context ends or the stream is closed, which then end the
	// call). A Route's Validator replaces it for that route; nil means
	// none.
	Validator func(text string) error
	// RetryInvalid retries a call whose output a validator rejected on the
	// next route. The caller then receives each route's output only once
	// it has been validated: no streaming (Hooks.FirstToken is not
	// called; Timing keeps the arrival times), but no rejected text
	// while a route is left to retry; a breach at any point falls back,
	// as nothing reached the caller yet. When no route is left, the last
	// output reaches the caller with the error that ended it: its
	// rejection (ErrInvalidOutput), as without RetryInvalid, or the
	// failure that cut it, with the text so far. False (the zero value)
	// streams as usual and reports a rejection in Stream.Err.
	RetryInvalid bool
	// Affinity keeps a session on the route that answered it last, tried
	// before the Router's order while it meets its budget (see Affinity);
	// the zero value gives affinity only to calls that name a session
	// (CallPolicy.Session). It changes only which route is tried first:
	// fallback, hedging, continuation, breakers and limits then apply in
	// that order as they do in the Router's own.
	Affinity Affinity
	// Probation holds the first tokens of a stream back from the caller
	// until it proves healthy (see Probation): a breach meanwhile falls
	// back as one before the first token does, invisibly. It sits
	// between Hedge and Budget in the policy order: the budget is
	// enforced on the held stream as on any, and its breach is handled
	// as if no token had come. The zero value holds nothing.
	Probation Probation
}

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
	Validator func(text string) error
	// Session names the call's session for Policy.Affinity: the call
	// tries first the route that answered the session last. "" means
	// none (the prompt's leading tokens, if Affinity.PrefixTokens is
	// set). The key is kept in memory only, never reported.
	Session string
}

type callPolicyKey struct{}

// ContextWithCallPolicy returns a context under which Router calls use p
// on top of their Policy.
func ContextWithCallPolicy(ctx context.Context, p CallPolicy) context.Context {
	return context.WithValue(ctx, callPolicyKey{}, p)
}

// Hedge configures hedged requests: when the running attempt has not
// produced its first token after a delay (counted from its start: after a
// fallback, from the fallback's), the next route starts in parallel; the
// first to produce an output token wins and the others are cancelled at
// once, their tokens never reaching the caller.
type Hedge struct {
	// After is the fixed delay before hedging; zero means no fixed delay.
	After time.Duration
	// Percentile, if in (0, 1], sets the delay to that quantile of the
	// TTFTs observed recently at the first route (0.95 for p95) once it
	// has MinSamples of them; until then After applies. Zero means After
	// only. A non-streaming call (Router.New…) reads the times to whole
	// answers of such calls instead, learnt apart.
	Percentile float64
	// MinSamples is how many TTFTs the percentile needs; zero means 20.
	MinSamples int
	// Max is how many hedged attempts may start; zero means 1.
	Max int
}

func (h Hedge) enabled() bool { return h.After > 0 || h.Percentile > 0 }

// defaultHedgeSamples is Hedge.MinSamples when it is zero.
const defaultHedgeSamples = 20

// Affinity keeps a session on the route that answered it last, so that a
// server's prefix cache (the KV of a long system prompt, a document, a
// conversation's history) stays warm for it: replicas of one model each
// cache only what they prefilled.
//
// A call belongs to a session when it names one (CallPolicy.Session) or,
// with PrefixTokens set, by its prompt's leading tokens. The route that
// delivered the session's last answer is tried first; the others follow
// in the Router's order. While that route meets its budget the session
// stays; when it does not (a breach, a failure, an open breaker,
// admission refusing it) the call falls back as usual and the route that
// answers instead becomes the session's. A call that fails on every
// route makes the session forget its route; one the caller cancels
// changes nothing.
//
// A Responses call that refers to a server's stored state (a
// previous_response_id, a conversation) goes to the route that made that
// response, when the Router made it, else to its session's route or the
// Router's first; and then only to the routes that ask the same server
// and account: the same openai.Client (Route.Client, the Router's
// Client's when nil), with no Route.Options of their own, which could
// name another base URL or key (two models of one account, say). No
// other route holds that state.
//
// A chat call that ends with the results of tool calls a route's model
// signed goes to that route first, before its session's (see Router).
//
// The zero value gives no call a session of its own: only calls that name
// one (CallPolicy.Session) have affinity, and without them the Router
// keeps its order for every call.
type Affinity struct {
	// PrefixTokens, when positive, gives each call that names no session
	// the session of its prompt's first PrefixTokens tokens (estimated at
	// four bytes a token, over the messages in order): calls that share a
	// leading context share a route. Zero means only calls that name a
	// session have affinity.
	PrefixTokens int
	// Sessions is how many sessions the Router remembers, and how many
	// response ids with the route that made each; the least recently
	// used is forgotten first. Zero means 4096.
	Sessions int
}

// Probation holds a stream's first tokens back from the caller until the
// stream has proved healthy: a commit gate. While a stream is held, a
// breach of its budget (a Gap or MinTPS the stream cannot keep, say) falls
// back to the next route (re-arming the hedge timer, if any), as a breach
// before the first token does: the caller never sees the dropped text,
// and the stream it reads is not Restarted. Under FailFast such a breach
// ends the call, the held text undelivered. A stream that fails while
// held (its end a failed finish reason, say) falls back the same way.
// When no route can be tried (the call's E2E budget spent, a hedge on
// the last), the held text reaches the caller with the error, as without
// probation, stamped when it does. Once the stream is committed, its
// held tokens reach the caller at once and the usual policies apply
// (a later breach continues or ends the call). As without probation, the
// first stream to produce a token wins the call and the others (hedges)
// are cancelled then.
//
// A stream is committed at the first of its conditions that holds; a
// stream that ends cleanly while held is delivered whole, as if
// committed at its end. Only a stream with a route left to fall back to
// is held: the last route's is committed at its first token. A stream that carries on the
// caller's output (a continuation, a restart) is never held.
//
// The caller's TTFT is then the time to the first token it received: the
// held tokens are stamped, in the call's Timing, no earlier than the
// commit, and so are the milestones they reached (Timing.Milestones);
// Hooks.FirstToken is called at the commit, and Hooks.Milestone then for
// the milestones reached while held, at the commit too (neither for a
// stream that ends while held, as with RetryInvalid). The cost of the
// probation is Attempt.Committed − Attempt.FirstToken. A non-streaming
// call (Router.New and the like) is never held: its answer reaches the
// caller whole, at its end, anyway.
//
// The zero value holds nothing.
type Probation struct {
	// Sentence commits the stream once its first sentence is complete
	// (MilestoneFirstSentence): what a voice pipeline hands to
	// text-to-speech. False means no such condition.
	Sentence bool
	// Tokens commits the stream once it has delivered this many output
	// tokens; pair it with a Budget.MinTPS to require that they come fast
	// enough: MinTPS is then checked from this many tokens on when
	// Budget.Warmup is more, so that a stream too slow is caught before
	// it is released. Zero means no such condition.
	Tokens int
	// For commits the stream once it has run this long after its first
	// token without a breach; it bounds the wait when the other
	// conditions take long. Zero means no such condition.
	For time.Duration
}

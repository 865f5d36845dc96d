package tokenpace

import (
	"container/list"
	"context"
	"encoding/json"
	"errors"
	"hash/fnv"
	"strconv"
	"sync"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace/internal/codec"
	"github.com/tokenpace/tokenpace/internal/wire"
)

// defaultAffinitySessions is Affinity.Sessions when it is zero.
const defaultAffinitySessions = 4096

// affinityTable remembers the route each session was last answered by, up
// to a bound, least recently used forgotten first. It is safe for
// concurrent use.
type affinityTable struct {
	max   int
	mu    sync.Mutex
	byKey map[string]*list.Element // of *affinityEntry
	lru   list.List                // most recently used first
}

type affinityEntry struct {
	key string
	rt  *route
}

func newAffinityTable(a Affinity) *affinityTable {
	n := a.Sessions
	if n <= 0 {
		n = defaultAffinitySessions
	}
	return &affinityTable{max: n, byKey: make(map[string]*list.Element)}
}

// lookup returns the route that last answered session key, or nil.
func (t *affinityTable) lookup(key string) *route {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.byKey[key]
	if !ok {
		return nil
	}
	t.lru.MoveToFront(e)
	return e.Value.(*affinityEntry).rt
}

// remember records that rt answered session key.
func (t *affinityTable) remember(key string, rt *route) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e, ok := t.byKey[key]; ok {
		e.Value.(*affinityEntry).rt = rt
		t.lru.MoveToFront(e)
		return
	}
	t.byKey[key] = t.lru.PushFront(&affinityEntry{key: key, rt: rt})
	for t.lru.Len() > t.max {
		old := t.lru.Back()
		t.lru.Remove(old)
		delete(t.byKey, old.Value.(*affinityEntry).key)
	}
}

// forget drops session key.
func (t *affinityTable) forget(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e, ok := t.byKey[key]; ok {
		t.lru.Remove(e)
		delete(t.byKey, key)
	}
}

// affinityKey returns the session key of a call: "s:" and the session the
// caller named, else "p:" and a hash of the prompt's first prefixTokens
// tokens when prefixTokens is positive, else "" (no affinity). The prompt
// itself is never kept.
func affinityKey(session string, prefixTokens int, messages []openai.ChatCompletionMessageParamUnion) string {
	if session != "" {
		return "s:" + session
	}
	if prefixTokens <= 0 || len(messages) == 0 {
		return ""
	}
	left := prefixTokens * 4 // bytes, as estimateTokens counts them
	h := fnv.New64a()
	for _, m := range messages {
		if left <= 0 {
			break
		}
		var b []byte
		switch c := m.GetContent().AsAny().(type) {
		case *string:
			b = []byte(*c)
		case nil:
		default:
			b, _ = json.Marshal(c)
		}
		if r := m.GetRole(); r != nil {
			h.Write([]byte(*r))
			h.Write([]byte{0})
		}
		b = b[:min(len(b), left)]
		left -= len(b)
		h.Write(b)
		h.Write([]byte{0})
	}
	return "p:" + strconv.FormatUint(h.Sum64(), 16)
}

// affinityOrder returns routes with pref moved to the front, the others
// in their order; nil when pref is nil or already first (the Router's own
// order applies).
func affinityOrder(routes []*route, pref *route) []*route {
	if pref == nil || len(routes) == 0 || routes[0] == pref {
		return nil
	}
	order := make([]*route, 0, len(routes))
	order = append(order, pref)
	found := false
	for _, rt := range routes {
		if rt == pref {
			found = true
			continue
		}
		order = append(order, rt)
	}
	if !found {
		return nil
	}
	return order
}

// callAffinity is a call's session and the route order it gives.
type callAffinity struct {
	key   string   // "" without affinity
	pref  *route   // the session's route when the call began; nil if none
	order []*route // the call's route order; nil means the Router's
}

// affinityFor returns the session of a call of req under ctx with the
// given messages and the route order it gives: for a tool loop's request
// that answers calls a route's model signed, that route first, the
// others in the Router's order (see signedRoute); for a request that
// refers to a server's stored state, only the routes whose server holds
// it (see storedRoute and sharingStore).
func (r *Router) affinityFor(ctx context.Context, req codec.Request, messages []openai.ChatCompletionMessageParamUnion) callAffinity {
	cp, _ := ctx.Value(callPolicyKey{}).(CallPolicy)
	var aff callAffinity
	if key := affinityKey(cp.Session, r.pol.Affinity.PrefixTokens, messages); key != "" {
		pref := r.affinity.lookup(key)
		aff = callAffinity{key: key, pref: pref, order: affinityOrder(r.routes, pref)}
	}
	if rt := r.signedRoute(req, messages); rt != nil {
		aff.order = affinityOrder(r.routes, rt)
	}
	if previous, ok := codec.Stored(req); ok {
		aff.order = r.sharingStore(r.storedRoute(previous, aff))
	}
	return aff
}

// sharingStore returns the routes whose server holds what rt's stores:
// rt, then, in the Router's order, every other route that asks the same
// openai.Client (the Router's Client's, when Route.Client is nil) with no
// Options of its own, which could name another base URL or key: two
// models of one account, say, whose responses one store keeps.
func (r *Router) sharingStore(rt *route) []*route {
	order := []*route{rt}
	if len(rt.Options) > 0 {
		return order
	}
	for _, o := range r.routes {
		if o != rt && o.Client == rt.Client && len(o.Options) == 0 {
			order = append(order, o)
		}
	}
	return order
}

// storedRoute returns the route a request that refers to a server's
// stored state (a previous_response_id, a conversation) may go to: the
// route that answered with response previous, when the Router made it;
// else the first route of the call's order (its session's route, if
// any). Another route's server does not hold that state: it answers 404,
// or, if it does not chain responses, an answer made without the
// conversation's history.
func (r *Router) storedRoute(previous string, aff callAffinity) *route {
	if previous != "" {
		if rt := r.stored.lookup(previous); rt != nil {
			return rt
		}
	}
	if aff.order != nil {
		return aff.order[0]
	}
	return r.routes[0]
}

// routeAt returns the call's i-th route: in its session's order, if any,
// else the Router's.
func (c *call) routeAt(i int) *route {
	if c.aff.order != nil {
		return c.aff.order[i]
	}
	return c.r.routes[i]
}

// routeCount returns how many routes the call may go to.
func (c *call) routeCount() int {
	if c.aff.order != nil {
		return len(c.aff.order)
	}
	return len(c.r.routes)
}

// affine reports whether tr was sent to its route because that route
// answered the call's session last: the call's first try, at the
// session's route.
func (c *call) affine(tr *try) bool {
	return c.aff.pref != nil && len(c.tries) > 0 && c.tries[0] == tr && tr.rt == c.aff.pref
}

// noteAffinity records, once the call has ended, which route answered its
// session: the one that delivered the end of its output. A call that
// failed makes the session forget its route; one the caller cancelled or
// closed changes nothing. It records too which route made each response
// the call's tries were given an id for, which the next turn may name as
// its previous_response_id. c.mu is held.
func (c *call) noteAffinity() {
	for _, tr := range c.tries {
		if tr.t != nil && tr.t.ResponseID != "" && c.api() == APIResponses {
			c.r.stored.remember(tr.t.ResponseID, tr.rt)
		}
	}
	if c.aff.key == "" {
		return
	}
	switch {
	case c.err == nil && len(c.out.tries) > 0:
		c.r.affinity.remember(c.aff.key, c.out.tries[len(c.out.tries)-1].rt)
	case c.err != nil && ctxErr(c.ctx) == nil && !errors.Is(c.err, ErrStreamClosed):
		c.r.affinity.forget(c.aff.key)
	}
}

// A tool loop's next request goes first to the route whose model signed
// the turn it answers (see wire.CallExtras.SignedBy): the client gives
// what a model signed back to that server and model alone, and Claude
// with extended thinking refuses the tool results of its own call
// without its blocks, 400 "Expected `thinking` or `redacted_thinking`,
// but found `tool_use`", while Gemini 3 takes Google's sentinel there
// and loses that step's reasoning.

// signedRoute returns the first route, in the Router's order, whose
// server and model signed the tool calls whose results end the chat
// request req with messages (see wire.CallExtras.SignedBy); nil when
// the request does not end with the results of tool calls (tool
// messages, then perhaps a user message with a tool's images), or no
// route's model signed the calls it answers. A route's server is the
// one its latest ended call sent to (see noteHosts): a route that has
// not sent yet signed nothing.
func (r *Router) signedRoute(req codec.Request, messages []openai.ChatCompletionMessageParamUnion) *route {
	if req.API() != codec.APIChat || wire.EndsWithResults(len(messages), func(i int) string { return roleOf(messages[i]) }) < 0 {
		return nil
	}
	extras := r.c.cfg.extras
	origins := make([]wire.Origin, len(r.routes))
	held := false
	for i, rt := range r.routes {
		host := rt.host.Load()
		if host == nil || !extras.Holds(*host) {
			continue
		}
		model := rt.Model
		if model == "" {
			model = req.Model()
		}
		origins[i], held = wire.Origin{Server: *host, Model: model}, true
	}
	if !held {
		return nil
	}
	if i := extras.SignedBy(codec.History(req, false), origins); i >= 0 {
		return r.routes[i]
	}
	return nil
}

// roleOf returns the role of m, as far as wire.EndsWithResults tells them
// apart: "tool", "user", "assistant", or "" for any other.
func roleOf(m openai.ChatCompletionMessageParamUnion) string {
	switch {
	case m.OfTool != nil:
		return "tool"
	case m.OfUser != nil:
		return "user"
	case m.OfAssistant != nil:
		return "assistant"
	}
	return ""
}

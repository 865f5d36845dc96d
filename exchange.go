package tokenpace

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace/internal/codec"
	"github.com/tokenpace/tokenpace/internal/ratelimit"
	"github.com/tokenpace/tokenpace/internal/wire"
)

// exchange records the HTTP requests of one call to one target, retries by
// openai-go included: its middleware notes when each request starts, its
// httptrace hooks the connection breakdown and the request write, and it
// stamps every read of the response body. It owns the HTTP fields of a
// Timing (Sent, WroteRequest, Headers, Streaming, Conn, HTTP,
// ServerAddress, ServerPort) and copies them into one with fill. Streaming
// attempts and a Client's non-streaming calls use it alike.
//
// Its methods are safe for concurrent use: httptrace hooks may run on
// transport goroutines.
type exchange struct {
	before flusher // told before each read of a response body; may be nil

	mu    sync.Mutex
	t     Timing // only the HTTP fields are used
	res   *http.Response
	body  *arrivalBody
	ended bool // fill has taken the final fields; late hooks are ignored
	// whole is the request of a non-streaming call, nil for a stream: its
	// response body is bounded, and an event stream sent in answer is
	// assembled into the whole response (see assemble).
	whole   codec.Request
	maxLine int   // the longest line of an event stream
	refused error // why an event stream sent in answer could not be assembled
	// closing is the client's set of servers that close every
	// connection after a response; nil learns nothing.
	closing *wire.ClosingServers
	// extras is the client's store of tool calls' extra content (Gemini
	// 3's thought signatures), given back to the server that sent them;
	// nil keeps none. host is the server of the latest request.
	extras *wire.CallExtras
	host   string
	// items is the client's store of who made each Responses reasoning
	// item, kept from a deployment that did not (see wire.ReasoningItems);
	// nil keeps none. account is the latest request's (see wire.Account).
	items   *wire.ReasoningItems
	account string
	// declined is the client's set of fields servers refused;
	// usageAdded: the client added stream_options to this call's request,
	// which may then go without it (see wire.RefusedFields).
	declined   *wire.RefusedFields
	usageAdded bool
	// maxAdded: the client added max_tokens beside the caller's
	// max_completion_tokens (see codec.AddedMaxTokens).
	maxAdded bool
	// asked is the request: the conversation before the answer tells its
	// turn from another of the same call or words (see wire.TurnKey).
	asked codec.Request
	// details and reasoning accumulate a stream's reasoning_details and
	// reasoning_content, kept with its first tool call's id, firstCall,
	// once the stream has ended.
	details   codec.Details
	reasoning codec.Reasoning
	// signed accumulates the thinking blocks Claude signed, as a relay
	// streams them (see codec.SignedBlocks), kept as details are.
	signed    codec.SignedBlocks
	firstCall string
	// turn: the stream carries reasoning or a thinking block, so that
	// every chunk is noted from then on: its content names a turn that
	// makes no call.
	turn bool
	// prefix is what a continuation carries on: the output and the
	// reasoning of its chain before it, which come before its own in the
	// turn the caller holds.
	prefix *codec.Continuation
	// cut says why an error body was cut short (see wire.BoundErrorBody);
	// empty when none was.
	cut string
	// drop tells whether the server answered without a field of the
	// request (a suffix, an echo) and keeps what it found.
	drop dropWatch
	// infill is the client's set of servers that do fill-in-the-middle
	// at /infill only; nil learns none.
	infill *wire.InfillServers
	// sglang is the client's set of what SGLang servers said of their
	// completion template; nil asks none (see dropWatch.sglang).
	sglang *wire.SGLangServers
	// llamaCppPython is the client's set of what llama-cpp-python
	// servers said of their fill-in-the-middle; nil asks none (see
	// dropWatch.kept).
	llamaCppPython *wire.LlamaCppPythonServers
	// sentBody gives the body of the last request sent again, as it
	// went (see constrained); nil before one was sent, or when it cannot.
	sentBody func() (io.ReadCloser, error)
}

// middleware returns the openai-go middleware that records every HTTP
// request. It must be the innermost middleware, nearest the wire.
//
// A request that failed on a reused connection before any byte of a
// response came back was never processed: the server had closed the
// connection as it was being reused (llama.cpp's server closes every
// connection after a stream, yet says Keep-Alive). The middleware sends
// it again at once, as net/http does for idempotent requests, up to
// wire.MaxStaleRetries times; each try is an HTTPAttempt of its own. See
// wire.ClosingServers.
//
// A completions request whose suffix llama.cpp's server answers without,
// as it has since November 2025, or refuses with 500, as it did before
// and its forks still do (see wire.LlamaCppRefused), is sent again to
// that server's /infill,
// and later ones straight there; the answer reaches the caller as a
// completion (see wire.ToInfill and wire.FromInfill); behind a relay that
// hides its headers the server is told by its answer's fingerprint (see
// wire.LlamaCppAnswer), and where the relay routes no /infill (see
// wire.NoInfill) the suffix is refused by name. So is a suffix LocalAI
// answered without, told by its answer's shape (see wire.LocalAIAnswer),
// or KoboldCpp, told by its Server header or its answer's shape (see
// wire.FieldDropper, wire.KoboldCppAnswer), or CLIProxyAPI, which answers
// completions from its upstream's chat API: none does fill-in-the-middle
// anywhere; and so is one SGLang started without a completion template
// answered without, told by its answer's shape and its /server_info (see
// dropWatch.sglang); so is one llama-cpp-python's server, told by its
// answer's shape, answered, unless its /openapi.json says it is a build
// that keeps the suffix (see dropWatch.kept). A request whose echo
// llama.cpp's server, KoboldCpp or
// CLIProxyAPI answers without gets the answer llama.cpp's server gave
// before: 400, the field
// named (see wire.DroppedField), so that no completion made without it
// reaches the caller; so does a stream whose echo mistral.rs or LMDeploy
// dropped, told by its first event (see wire.StreamEchoDropper), and a
// whole answer whose echo LMDeploy dropped (see wire.WholeEchoDropper);
// a suffix LMDeploy dropped is refused as LocalAI's is. Under TGI's
// router's x-compute-type header (see wire.TGIRouter), an echo is
// refused as TGI's, which never echoes, but in LoRAX's whole answer,
// which holds the prompt, and a suffix, which TGI answers 422, as a
// fork's that took it. A request whose
// echo llama.cpp's server refuses with 500 gets that
// answer as a 400, not sent again (see wire.AsRequestError); any other
// answer whose status says another failure than its body does is given
// the status of what its body says (see wire.Restated).
//
// A request refused for a field the client added to it (stream_options,
// max_tokens, or what it gave back to the server: see wire.CallExtras),
// or for the caller's max_completion_tokens beside the max_tokens the
// client added with the same limit, is sent again at once without that
// field, as an HTTPAttempt of its own, and the
// server is remembered: see wire.RefusedFields. So is one refused for a
// function tool without a description or parameters, sent again with
// them filled in (see wire.BareTools), a stream refused for its tools,
// sent again whole and its answer given as a stream (see
// wire.StreamedTools), and a request whose tool call ids the server's
// model refused for their form (Mistral's 9 letters and digits,
// Anthropic's and Bedrock's letters, digits, '_' and '-'), sent again
// with ids of that form (see wire.WriteCallIDs, wire.RefusedCallIDs). A 501 is not
// sent again (see wire.NotImplemented), nor a 429 that says the account's balance or quota is spent (see
// wire.QuotaSpent); a 424, its upstream's failure, is, as a 5xx, unless
// its upstream refused the request itself (see wire.FailedDependency),
// and so is Groq's 498 of a flex tier out of capacity (see
// wire.CapacityExceeded).
func (x *exchange) middleware() option.Middleware {
	return func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		req, d := x.askDropped(req, next)
		refusals := 0
		for stale := 0; ; {
			res, again, added, err := x.send(req, next)
			if d.infill && err == nil {
				res = wire.FromInfill(res, d.model, x.maxLine)
			}
			refused, tools := "", "" // a field the request may go without, the tools' shape, refused by res
			if !again && refusals < maxRefusals {
				refused = wire.RefusedField(res, added)
				if refused == "" {
					tools = wire.RefusedTools(res)
				}
				if refused == "" && tools == "" {
					tools = wire.RefusedCallIDs(res, func() []byte { return bodyOf(req) }).For(x.model())
				}
			}
			switch {
			case again && stale < wire.MaxStaleRetries:
				stale++
			case refused != "":
				refusals++
				x.declined.Learn(req, refused)
			case tools != "" && refusals < maxRefusals && !x.declined.Refuses(req, tools):
				// A request refused for its tools' shape: sent again as
				// the server takes it, whole or with every tool's
				// description and parameters (see wire.RefusedTools), or
				// with its tool call ids in the form it takes (see
				// wire.WriteCallIDs).
				refusals++
				x.declined.Learn(req, tools)
			case err != nil:
				return res, err
			default:
				infill, answer := x.answerDropped(&d, req, res)
				if infill == nil {
					return answer, nil
				}
				req = infill
				continue
			}
			if req.GetBody == nil || req.Context().Err() != nil {
				return res, err
			}
			body, gerr := req.GetBody()
			if gerr != nil {
				return res, err
			}
			if res != nil && res.Body != nil {
				_ = res.Body.Close()
			}
			req = req.Clone(req.Context())
			req.Body = body
		}
	}
}

// constrained reports whether the last request sent asked the server to
// constrain its answer's form in its body (see codec.Constrained): a
// member set with option.WithJSONSet or by a middleware, which the typed
// parameters do not show. It reads the body again, which it does only
// when asked (a Router deciding how to carry a broken answer on), and
// reports false for a body it cannot read again or longer than
// maxRewriteBody.
func (x *exchange) constrained() bool {
	x.mu.Lock()
	get := x.sentBody
	x.mu.Unlock()
	if get == nil {
		return false
	}
	rc, err := get()
	if err != nil {
		return false
	}
	body, err := io.ReadAll(io.LimitReader(rc, maxRewriteBody+1))
	rc.Close()
	return err == nil && len(body) <= maxRewriteBody && codec.Constrained(body)
}

// refuseDropped notes that the server dropped field and returns the
// answer that refuses it (see wire.RefuseDropped), which stands for the
// server's from then on.
func (x *exchange) refuseDropped(res *http.Response, by, field string) *http.Response {
	out := wire.RefuseDropped(res, by, field)
	x.drop.dropped(field, by)
	x.mu.Lock()
	x.res = out
	x.mu.Unlock()
	return out
}

// fieldIgnored reports whether data, the first event of a stream, says
// that its server dropped a field of the request (see
// dropWatch.firstEvent). A llama.cpp server that dropped a suffix is then
// learnt as one whose fill-in-the-middle is /infill, for the next request
// (see the middleware); this one is refused by name (see failure).
func (x *exchange) fieldIgnored(data []byte) bool {
	by, served := x.drop.firstEvent(data)
	if by == wire.LlamaCpp && served != "" {
		x.infill.Learn(served)
	}
	return by != ""
}

// maxRefusals bounds how many times one request is sent again without a
// field its server refused, or with its tools filled in (see
// wire.BareTools): one per field the client may add or fill.
const maxRefusals = 4

// send sends req through next as HTTP request of its own, and reports
// whether it failed on a reused connection before any response byte came
// back, within wire.StaleWithin of its write, so that it is safe to send
// again, and the fields it may go without (see shape).
func (x *exchange) send(req *http.Request, next option.MiddlewareNext) (res *http.Response, stale bool, added []string, err error) {
	x.mu.Lock()
	now := time.Now()
	if x.t.Sent.IsZero() {
		x.t.Sent = now
	}
	x.t.HTTP = append(x.t.HTTP, HTTPAttempt{Start: now})
	i := len(x.t.HTTP) - 1
	x.t.ServerAddress, x.t.ServerPort = serverOf(req.URL)
	server := req.URL.Host
	x.host = server
	x.account = wire.Account(req.Header)
	x.mu.Unlock()

	req, added, whole := x.shape(req, server)
	tr := x.clientTrace(i)
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), &tr.hooks))
	if x.closing.Closes(server) {
		req.Close = true // its connections are not worth pooling
	}
	wire.AskGzip(req) // decoded here, so that a body labelled gzip that is not reads (see wire.Decompress)
	res, err = next(req)

	x.mu.Lock()
	x.sentBody = req.GetBody
	h := &x.t.HTTP[i]
	h.Err = err
	if res != nil {
		h.Headers = time.Now()
		h.Status = res.StatusCode
		if res.StatusCode >= 400 {
			h.RetryAfter = ratelimit.RetryAfter(res.Header, h.Headers)
		}
		x.t.Headers = h.Headers
		x.t.Streaming = streamHeaders(res.Header)
		x.res = res
		if res.Body != nil {
			x.body = &arrivalBody{ReadCloser: res.Body, before: x.before}
			res.Body = x.body
			wire.Decompress(res) // it stamps the bytes as they came, decodes them as they are read
		}
	}
	x.t.WroteRequest = h.WroteRequest
	x.t.Conn = h.Conn
	written := h.WroteRequest
	if written.IsZero() {
		written = h.Start
	}
	stale = err != nil && res == nil && h.Conn.Reused && !tr.responded && !tr.multiplexed &&
		time.Since(written) < wire.StaleWithin
	idle := tr.idle
	hint := res != nil && res.StatusCode == http.StatusTooManyRequests && h.RetryAfter == 0
	x.mu.Unlock()
	if hint {
		// A 429 that says how long to wait only in its body (Gemini's
		// retryDelay, OpenAI's "Please try again in 20s"): read ahead,
		// through the body's stamps, and left whole for its reader.
		wait := ratelimit.BodyRetryAfter(wire.ReadAhead(res, maxHintBody))
		x.mu.Lock()
		x.t.HTTP[i].RetryAfter = wait
		x.mu.Unlock()
	}
	if stale {
		x.closing.Learn(server, idle)
	}
	res = wire.FailedDependency(res) // the upstream's status in a 424's body, before bound rewrites it
	if res != nil && res.Body != nil {
		x.bound(res) // it reads an error body: without x.mu, which httptrace hooks take
	}
	res = wire.QuotaSpent(wire.NotImplemented(wire.Cancelled(wire.CapacityExceeded(res))))
	if whole {
		res = wire.AsStream(res)
	}
	return res, stale, added, err
}

// shape returns req as server takes it: what the client gave back to it
// restored (see wire.CallExtras), Gemini's sentinel on the calls of the
// current turn that no model signed for it (see wire.SkipUnsigned), what
// the client added and the server refuses dropped, its tools filled in
// (see wire.BareTools), its tool call ids written in the form the server
// takes (see wire.WriteCallIDs) or the request sent whole (see
// wire.StreamedTools) where the server needs it; the fields it may go
// without if the server refuses one (those the client added that it
// keeps, the sentinel apart from its field: see wire.SkipRefusal, and
// the caller's max_completion_tokens beside the max_tokens the client
// added); and whether it goes whole for a stream (see wire.Unstreamed).
func (x *exchange) shape(req *http.Request, server string) (_ *http.Request, added []string, whole bool) {
	refuses := func(field string) bool { return x.declined.Refuses(req, field) }
	to := wire.Origin{Server: server, Model: x.model()}
	skip := "" // the field in which the server takes Gemini's sentinel (see wire.SkipField)
	if x.extras != nil {
		skip = wire.SkipField(server, to.Model, x.extras.Signs(server))
	}
	if skip != "" && (refuses(skip) || refuses(wire.SkipRefusal(skip))) {
		skip = ""
	}
	if x.extras.Holds(server) || skip != "" {
		req = rewrite(req, func(body []byte) []byte {
			out, given := x.extras.Restore(to, body, refuses)
			out, skipped := wire.SkipUnsigned(out, skip)
			if skipped {
				// First, so that a refusal naming the field is blamed
				// on the sentinel before what the server sent.
				added = append(added, wire.SkipRefusal(skip))
			}
			added = append(added, given...)
			return out
		})
	}
	if x.items.Holds() && strings.HasSuffix(req.URL.Path, "/responses") {
		// Another deployment's reasoning items taken out (see
		// wire.ReasoningItems).
		to := wire.SealerOf(server, to.Model, wire.Account(req.Header))
		req = rewrite(req, func(body []byte) []byte {
			out, _ := x.items.Foreign(to, body)
			return out
		})
	}
	var drop []string // fields the client added that this server goes without
	switch {
	case !x.usageAdded:
	case refuses(wire.StreamOptions):
		drop = append(drop, wire.StreamOptions)
	default:
		added = append(added, wire.StreamOptions)
	}
	switch {
	case !x.maxAdded:
	case refuses(wire.MaxTokens) || wire.TakesMaxCompletionTokens(server):
		drop = append(drop, wire.MaxTokens)
	case refuses(wire.MaxCompletionTokens):
		drop = append(drop, wire.MaxCompletionTokens) // max_tokens holds the limit
	default:
		// Either may be refused: max_tokens first, named beside
		// max_completion_tokens in OpenAI's refusal of it.
		added = append(added, wire.MaxTokens, wire.MaxCompletionTokens)
	}
	fill := refuses(wire.BareTools)         // the server needs every tool's description and parameters
	unstream := refuses(wire.StreamedTools) // the server answers a request with tools whole only
	ids := wire.AnyCallID                   // the form of tool call id the server takes for this model
	for _, f := range []wire.CallIDForm{wire.NineCharCallID, wire.SafeCallID} {
		if refuses(f.For(x.model())) {
			ids = f
			break
		}
	}
	if len(drop) > 0 || fill || unstream || ids != wire.AnyCallID {
		req = rewrite(req, func(body []byte) []byte {
			for _, f := range drop {
				body, _ = wire.Without(body, f)
			}
			if fill {
				body = wire.FillTools(body)
			}
			body = wire.WriteCallIDs(body, ids)
			if unstream {
				body, whole = wire.Unstreamed(body)
			}
			return body
		})
	}
	if whole {
		added = slices.DeleteFunc(added, func(f string) bool { return f == wire.StreamOptions })
	}
	return req, added, whole
}

// maxRewriteBody bounds the request body rewrite reads: a larger request
// is sent as it is.
const maxRewriteBody = 32 << 20

// rewrite returns req with its body rewritten by f: the extra content a
// server sent with tool calls given back to them (see wire.CallExtras),
// stream_options taken out for a server that refuses it (see
// wire.RefusedFields). It returns req itself when its body cannot be
// read again (see bodyOf), else a copy whose body is f's.
func rewrite(req *http.Request, f func(body []byte) []byte) *http.Request {
	body := bodyOf(req)
	if body == nil {
		return req
	}
	// The body read is what is sent, changed or not: GetBody may hand out
	// one shared reader, which the read has just drained.
	out := f(body)
	if req.Body != nil {
		req.Body.Close()
	}
	req = req.Clone(req.Context())
	req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(out)), int64(len(out))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(out)), nil }
	return req
}

// bodyOf returns req's body, read again through GetBody; nil when it
// cannot be, or is longer than maxRewriteBody.
func bodyOf(req *http.Request) []byte {
	if req.GetBody == nil || req.ContentLength > maxRewriteBody {
		return nil
	}
	rc, err := req.GetBody()
	if err != nil {
		return nil
	}
	body, err := io.ReadAll(io.LimitReader(rc, maxRewriteBody+1))
	rc.Close()
	if err != nil || len(body) > maxRewriteBody {
		return nil
	}
	return body
}

// note notes what of ev, a chat event, the server wants back with the
// calls it made (see wire.CallExtras): the extra content of its tool
// calls, kept at once, and its reasoning details and reasoning content,
// accumulated until the stream ends (see keepDetails).
func (x *exchange) note(ev *codec.Event) {
	if ev.Items && x.items != nil {
		from := x.sealer()
		codec.ReasoningItems(ev, func(id, sealed string) { x.items.Keep(from, id, sealed) })
	}
	if x.extras == nil {
		return
	}
	if ev.Details {
		x.details.Add(ev)
	}
	// A thinking block may come before any reasoning (LiteLLM's redacted
	// block, whole and alone): the turn begins there.
	if ev.Reasoning || ev.Details || ev.Blocks || x.turn {
		x.turn = true // its content names a turn that makes no call
		x.reasoning.Add(ev)
		x.signed.Add(ev)
	}
	if !ev.ToolCall && !codec.Whole(ev) {
		return
	}
	if x.firstCall == "" {
		x.firstCall = codec.FirstCallID(ev)
	}
	from := x.origin()
	var h *wire.History
	codec.CallExtras(ev,
		func(id, raw string) { x.extras.Keep(from, id, wire.ExtraContent, raw) },
		func(call, args, content, field, raw string) {
			if h == nil {
				h = wire.HistoryOf(codec.History(x.asked, false))
			}
			x.keepTurn(from, h, call, args, true, content, field, raw)
		})
}

// keepTurn keeps raw, the field of a turn that followed the conversation
// h, under each of its ids (see wire.TurnKey): the turn's first call and
// its arguments (unless unknown, !argsKnown), or, for a turn that made
// none, its content. The id another turn may share goes first, and is
// dropped first when the store is full.
func (x *exchange) keepTurn(from wire.Origin, h *wire.History, call, args string, argsKnown bool, content, field, raw string) {
	x.extras.Share(from, wire.TurnKey(call, content), field, raw)
	switch {
	case call == "":
		x.extras.Share(from, wire.AnswerKey(content, h.Last()), field, raw)
		x.extras.Keep(from, wire.AnswerKey(content, h.All()), field, raw)
	case argsKnown:
		x.extras.Share(from, wire.ArgsKey(call, args, h.Last()), field, raw)
		x.extras.Keep(from, wire.ArgsKey(call, args, h.All()), field, raw)
	}
}

// keepDetails keeps the reasoning details and reasoning content of a
// stream that ended, with its first tool call, or, when it made none,
// under its content, and the conversation before it (see keepTurn):
// after a continuation's prefix,
// the turn's content and reasoning so far. A stream that broke keeps
// them too, for the continuation, whose assistant message is that
// content, and which a server that wants the reasoning of every turn
// back (DeepSeek V4) refuses without it.
func (x *exchange) keepDetails() {
	reasoning := x.chainReasoning()
	if x.extras == nil || !x.turn && reasoning == "" {
		return
	}
	content := x.reasoning.Content()
	if x.prefix != nil {
		content = x.prefix.Text + content
	}
	if x.firstCall == "" && strings.TrimSpace(content) == "" {
		return
	}
	args, argsKnown := x.reasoning.FirstCallArgs()
	h := wire.HistoryOf(codec.History(x.asked, x.prefix != nil))
	from, details := x.origin(), x.details.JSON()
	if details != "" {
		x.keepTurn(from, h, x.firstCall, args, argsKnown, content, wire.ReasoningDetails, details)
	}
	if signed := x.signed.JSON(); signed != "" {
		x.keepTurn(from, h, x.firstCall, args, argsKnown, content, x.signed.Field(), signed)
	}
	if reasoning != "" {
		raw, _ := json.Marshal(reasoning)
		x.keepTurn(from, h, x.firstCall, args, argsKnown, content, x.reasoning.Field(), string(raw))
	}
}

// chainReasoning returns the reasoning_content of the turn so far: the
// prefix's, then the stream's own.
func (x *exchange) chainReasoning() string {
	r := x.reasoning.Text()
	if x.prefix != nil {
		r = x.prefix.Reasoning + r
	}
	return r
}

// origin returns where the latest request went: its server, and the
// model the call asked for (see wire.Origin).
func (x *exchange) origin() wire.Origin {
	x.mu.Lock()
	defer x.mu.Unlock()
	return wire.Origin{Server: x.host, Model: x.model()}
}

// sealer returns the deployment the latest request went to, as
// Responses reasoning items are sealed (see wire.Sealer).
func (x *exchange) sealer() wire.Sealer {
	x.mu.Lock()
	defer x.mu.Unlock()
	return wire.SealerOf(x.host, x.model(), x.account)
}

// model returns the model the call asks for: the request's, a route's
// in place of the caller's (see Route.Model). What the client keeps of an
// answer and gives back on a later request is keyed by it on both sides,
// so that a model's signatures go back to that model alone.
func (x *exchange) model() string {
	switch {
	case x.asked != nil:
		return x.asked.Model()
	case x.whole != nil:
		return x.whole.Model()
	}
	return ""
}

// bound bounds what openai-go reads of res's body, decoded already (see
// wire.Decompress): an error body, or a non-streaming response, its bytes
// and its JSON objects (see package wire and codec.WholeObjects).
func (x *exchange) bound(res *http.Response) {
	switch {
	case res.StatusCode >= 400:
		cut := wire.BoundErrorBody(res)
		x.mu.Lock()
		x.cut = cut
		x.mu.Unlock()
	case x.whole != nil:
		res.Body = wire.LimitBody(res.Body)
		if res.StatusCode < 300 && isEventStream(res.Header.Get("Content-Type")) {
			x.assemble(res)
		} else {
			res.Body = wire.LimitObjects(res.Body, codec.WholeObjects(x.whole), codec.MaxItems)
		}
	}
}

// assemble replaces res, an event stream sent in answer to a
// non-streaming request (servers that stream whatever the request says),
// by the JSON of the whole response, which openai-go then decodes: see
// codec.Assemble. It reads the stream to its end; Timing keeps the
// server's Content-Type, and E2E ends at the stream's last byte. An event
// stream that cannot be assembled (an error event, a malformed event, a
// stream cut short) fails the call as the same stream would (see
// wholeFailure).
func (x *exchange) assemble(res *http.Response) {
	b, err := codec.Assemble(x.whole, res.Body, x.maxLine)
	_ = res.Body.Close()
	if err != nil {
		x.mu.Lock()
		x.refused = err
		x.mu.Unlock()
		res.Body = io.NopCloser(failedBody{err})
		return
	}
	res.Body = io.NopCloser(bytes.NewReader(b))
	res.ContentLength = int64(len(b))
	res.Header.Set("Content-Type", "application/json")
}

// failedBody is a body whose every read fails with err.
type failedBody struct{ err error }

func (b failedBody) Read([]byte) (int, error) { return 0, b.err }

// wholeFailure classifies why a non-streaming call that got res failed,
// when res was a 2xx answer: an event stream that could not be assembled
// fails as the stream would (see refusal and readKind); an answer neither
// JSON nor an event stream (an HTML page of a proxy, say) is
// KindContentType. kind is 0 otherwise.
func (x *exchange) wholeFailure(res *http.Response) (kind ErrorKind, detail string, err error) {
	x.mu.Lock()
	refused := x.refused
	x.mu.Unlock()
	switch {
	case res == nil || res.StatusCode >= 300:
		return 0, "", nil
	case refused != nil:
		var ce *codec.Error
		if errors.As(refused, &ce) {
			return refusal(refused, res)
		}
		return readKind(refused)
	case !isJSON(res.Header.Get("Content-Type")):
		return KindContentType, res.Header.Get("Content-Type"), nil
	}
	return 0, "", nil
}

// wholeRefusal classifies refused, why the codec refused a whole response
// (see codec.Request's Fetch): the server's error in the place of the
// answer is KindErrorEvent, with the error as an *openai.Error; anything
// else KindMalformed.
func (x *exchange) wholeRefusal(refused error) (ErrorKind, string, error) {
	if res, _ := x.response(); res != nil {
		return refusal(refused, res)
	}
	return KindMalformed, "", refused
}

// answered records res as the answer of a request that a middleware
// answered without sending it, asked for at sent and answered at
// headers.
func (x *exchange) answered(res *http.Response, sent, headers time.Time) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.t.Sent, x.t.Headers = sent, headers
	x.t.HTTP = append(x.t.HTTP, HTTPAttempt{Start: sent, Headers: headers, Status: res.StatusCode})
	x.t.Streaming = streamHeaders(res.Header)
	x.res = res
}

// sent returns when the first request left; zero before.
func (x *exchange) sent() time.Time {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.t.Sent
}

// response returns the last response and its stamped body; nil before
// one arrived. Whoever made the call may read the body; the exchange
// only stamps it.
func (x *exchange) response() (*http.Response, *arrivalBody) {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.res, x.body
}

// lastRead returns when the last read of a response body returned data;
// zero if none did. Only the body's reader may call it.
func (x *exchange) lastRead() time.Time {
	_, b := x.response()
	if b == nil {
		return time.Time{}
	}
	return b.last
}

// fill copies the HTTP fields into t. With final set, the exchange stops
// recording: t then holds its last word.
func (x *exchange) fill(t *Timing, final bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	t.Sent, t.WroteRequest, t.Headers = x.t.Sent, x.t.WroteRequest, x.t.Headers
	t.Streaming, t.Conn = x.t.Streaming, x.t.Conn
	t.ServerAddress, t.ServerPort = x.t.ServerAddress, x.t.ServerPort
	if final {
		x.ended = true
		t.HTTP = x.t.HTTP
		return
	}
	t.HTTP = append([]HTTPAttempt(nil), x.t.HTTP...)
}

// failure is the error of a call to target whose request failed with
// err: the caller's context error (see ctxErr) when it ended, else a
// KindRequest *StreamError, KindTooLarge when a body was over its bound.
func (x *exchange) failure(ctx context.Context, target string, err error) error {
	if cerr := ctxErr(ctx); cerr != nil {
		return cerr
	}
	x.mu.Lock()
	cut := x.cut
	x.mu.Unlock()
	dropped, by := x.drop.found()
	switch {
	case dropped != "":
		return &StreamError{Kind: KindRequest, Target: target, Detail: wire.DroppedDetail(by, dropped), Err: err}
	case errors.Is(err, wire.ErrInfillIgnored):
		// As a whole answer's refusal names it (see wire.FromInfill).
		return &StreamError{Kind: KindRequest, Target: target, Detail: "infill_input_ignored", Err: err}
	case cut != "":
		return &StreamError{Kind: KindTooLarge, Target: target, Detail: cut, Err: err}
	case errors.Is(err, wire.ErrBodyTooLarge):
		return &StreamError{Kind: KindTooLarge, Target: target, Detail: "response body", Err: err}
	}
	return &StreamError{Kind: KindRequest, Target: target, Detail: statusDetail(err), Err: err}
}

// serverOf returns the host and port of u, the port implied by its scheme
// when it names none; 0 for an unknown scheme or a port that is not a
// number.
func serverOf(u *url.URL) (string, int) {
	if u == nil {
		return "", 0
	}
	switch p := u.Port(); {
	case p != "":
		n, err := strconv.Atoi(p)
		if err != nil {
			n = 0
		}
		return u.Hostname(), n
	case u.Scheme == "https":
		return u.Hostname(), 443
	case u.Scheme == "http":
		return u.Hostname(), 80
	}
	return u.Hostname(), 0
}

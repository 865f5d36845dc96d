package tokenpace_test

import (
	"cmp"
	"context"
	"errors"
	"maps"
	"net/http"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
)

// conformancePolicy is a Router policy the corpus is replayed under.
type conformancePolicy struct {
	name string
	// policy returns the Policy for fx, whose Client answer ended at last.
	policy func(last time.Duration) tokenpace.Policy
	// session names the call's session (CallPolicy.Session).
	session string
	// continues: Continue is set, and a broken output that reached the
	// caller goes on at the second route (TestConformance).
	continues bool
	// calls is how many calls are made in turn on one Router (0: one):
	// a session's second call goes first to the route that answered
	// its first.
	calls int
	// held: the first tokens reach the caller no earlier than a commit
	// (Probation), so its TTFT may come later than the Client's.
	held bool
	// buffered: the output reaches the caller only once validated
	// (RetryInvalid); Timing keeps the arrival times (Policy.RetryInvalid).
	buffered bool
	// hedges: a hedge may take the second route, and with it the route
	// a held or buffered output that broke would fall back to.
	hedges bool
}

// generousBudget is a budget no fixture's timing breaches: every limit
// beyond the whole answer's end, the decode rate far under one token
// in that time.
func generousBudget(last time.Duration) tokenpace.Budget {
	d := 2*last + 10*time.Second
	return tokenpace.Budget{TTFT: d, Gap: d, E2E: 4 * d, MinTPS: 1 / d.Seconds() / 4}
}

// conformancePolicies are the Router policies besides Continue
// (TestConformance), one at a time, then probation with Continue, then
// all at once, without and with Continue (a hedge then takes the second
// route, and no continuation is left to start).
var conformancePolicies = []conformancePolicy{
	{name: "probation-tokens", held: true, policy: func(time.Duration) tokenpace.Policy {
		return tokenpace.Policy{Probation: tokenpace.Probation{Tokens: 3}}
	}},
	{name: "probation-sentence", held: true, policy: func(time.Duration) tokenpace.Policy {
		return tokenpace.Policy{Probation: tokenpace.Probation{Sentence: true}}
	}},
	{name: "hedge", hedges: true, policy: func(time.Duration) tokenpace.Policy {
		return tokenpace.Policy{Hedge: tokenpace.Hedge{After: time.Millisecond}}
	}},
	{name: "validator", buffered: true, policy: func(time.Duration) tokenpace.Policy {
		return tokenpace.Policy{Validator: func(string) error { return nil }, RetryInvalid: true}
	}},
	{name: "failfast", policy: func(time.Duration) tokenpace.Policy {
		return tokenpace.Policy{FailFast: true}
	}},
	{name: "affinity", session: "conversation-1", calls: 2, policy: func(time.Duration) tokenpace.Policy {
		return tokenpace.Policy{}
	}},
	{name: "budget", policy: func(last time.Duration) tokenpace.Policy {
		return tokenpace.Policy{Budget: generousBudget(last)}
	}},
	{name: "probation-continue", held: true, continues: true, policy: func(last time.Duration) tokenpace.Policy {
		return tokenpace.Policy{
			Probation: tokenpace.Probation{Tokens: 3, Sentence: true},
			Budget:    generousBudget(last), Continue: true,
		}
	}},
	{name: "all", held: true, hedges: true, buffered: true, session: "conversation-1", policy: func(last time.Duration) tokenpace.Policy {
		return tokenpace.Policy{
			Probation: tokenpace.Probation{Tokens: 3, Sentence: true},
			Hedge:     tokenpace.Hedge{After: time.Millisecond},
			Validator: func(string) error { return nil }, RetryInvalid: true,
			FailFast: true,
			Budget:   generousBudget(last),
		}
	}},
	{name: "all-continue", held: true, hedges: true, buffered: true, continues: true, session: "conversation-1", policy: func(last time.Duration) tokenpace.Policy {
		return tokenpace.Policy{
			Probation: tokenpace.Probation{Tokens: 3, Sentence: true},
			Hedge:     tokenpace.Hedge{After: time.Millisecond},
			Validator: func(string) error { return nil }, RetryInvalid: true, FailFast: true,
			Budget: generousBudget(last), Continue: true,
		}
	}},
}

// racePolicies returns the policies the i-th fixture in name order is
// replayed under with the race detector on: the two that combine them all
// (the last two of conformancePolicies), and one of the others in turn.
func racePolicies(i int) []conformancePolicy {
	single := conformancePolicies[:len(conformancePolicies)-2]
	return []conformancePolicy{single[i%len(single)], conformancePolicies[len(conformancePolicies)-2], conformancePolicies[len(conformancePolicies)-1]}
}

// slowSecond is secondRoute answering only after wait: a hedge started on
// it loses to a first route that answers within the fixture's time.
func slowSecond(wait time.Duration) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !sleepUntil(r.Context(), time.Now().Add(wait)) {
			return
		}
		secondRoute(w, r)
	}
}

// callConformance makes fx's call through the Client c, or through the
// Router r when it is not nil, under ctx, and reads it to its end.
func callConformance(ctx context.Context, fx conformance, c *tokenpace.Client, r *tokenpace.Router) read {
	switch fx.Request.Path {
	case "/v1/responses":
		p := respond(fx.Request.Body.Model, int(cmp.Or(fx.Request.Body.MaxOutputTokens, 64)))
		if r != nil {
			return readResponseStream(r.NewResponseStreaming(ctx, p))
		}
		return readResponseStream(c.NewResponseStreaming(ctx, p))
	case "/v1/completions":
		p := openai.CompletionNewParams{Model: openai.CompletionNewParamsModel(fx.Request.Body.Model),
			Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("def add")}}
		if r != nil {
			return readCompletionStream(r.NewCompletionStreaming(ctx, p))
		}
		return readCompletionStream(c.NewCompletionStreaming(ctx, p))
	}
	p := chat(fx.Request.Body.Model, int(cmp.Or(fx.Request.Body.MaxTokens, 64)))
	if n := fx.Request.Body.N; n > 1 && n == float64(int64(n)) && fx.Expect.Error == "" {
		p.N = openai.Int(int64(n))
	}
	for _, tool := range fx.Request.Body.Tools {
		p.Tools = append(p.Tools, openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{
			Name: cmp.Or(tool.Function.Name, tool.Custom.Name)}))
	}
	if r != nil {
		return readChat(r.NewStreaming(ctx, p))
	}
	return readChat(c.NewStreaming(ctx, p))
}

// TestConformancePolicies replays every fixture of testdata/conformance
// through a Router under each of its policies besides Continue
// (TestConformance): Probation, Hedge, a Validator with RetryInvalid,
// FailFast, Affinity, a Budget no fixture's timing breaches, and all of
// them at once, with a second route that answers otherwise, and slower
// than the fixture, so that a wrong fallback or a lost hedge shows. A
// whole answer reaches the caller as it reaches a Client's: the text,
// Accumulated(), the reasoning, tool calls, finish reason and usage, no
// error, one attempt, and a TTFT that is the time to the first output the
// caller received. A broken or empty one gives the text so far and the
// Client's error, or falls back to the second route's answer alone (where
// nothing reached the caller yet): never two routes' text glued.
//
// Under the race detector, which makes the replay several times slower,
// each fixture meets the two combined policies and one other, in turn by
// the fixture's place in name order (racePolicies); CI replays the whole
// matrix without it.
func TestConformancePolicies(t *testing.T) {
	all := loadConformance(t)
	for i, name := range slices.Sorted(maps.Keys(all)) {
		fx, policies := all[name], conformancePolicies
		if tokenpace.RaceEnabled {
			policies = racePolicies(i)
		}
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				last := ms(fx.HeadersMS)
				if n := len(fx.Reads); n > 0 {
					last = ms(fx.Reads[n-1].TMS)
				}
				url, hc := serve(t, byModel(map[string]http.Handler{
					fx.Request.Body.Model: replay(fx.recording),
					"second":              slowSecond(last + time.Second),
				}))
				c := tokenpace.NewClient(openaiClient(url, hc))
				base := callConformance(context.Background(), fx, c, nil)
				for _, pol := range policies {
					r, err := tokenpace.NewRouter(c, pol.policy(last),
						tokenpace.Route{Name: "first", Model: fx.Request.Body.Model}, route("second"))
					if err != nil {
						t.Fatal(err)
					}
					ctx := context.Background()
					if pol.session != "" {
						ctx = tokenpace.ContextWithCallPolicy(ctx, tokenpace.CallPolicy{Session: pol.session})
					}
					for range max(pol.calls, 1) {
						start := time.Now()
						got := callConformance(ctx, fx, nil, r)
						checkPolicyRead(t, pol, fx, base, got, start)
					}
				}
			})
		})
	}
}

// checkPolicyRead checks what a Router caller under pol read, got, against
// what a Client caller read, base; start is when the Router call began.
func checkPolicyRead(t *testing.T, pol conformancePolicy, fx conformance, base, got read, start time.Time) {
	t.Helper()
	baseTTFT := base.tm.TTFT()
	who := "Router (" + pol.name + ")"
	whole := fx.Expect.Error == "" && !fx.Expect.Empty
	fellBack := got.text == extra && got.acc == extra && got.err == nil
	ended := got.text == base.text && got.acc == base.acc && got.reasoning == base.reasoning && sameError(got.err, base.err)
	if pol.continues && !ended && !fellBack && !whole && !fx.Expect.RouterEnds {
		// Continued, or restarted where the output carried a tool call
		// or its server rejected it whole (the caller read the text
		// before it, and Accumulated starts over): the first route's
		// text so far, then the second's.
		restarted := len(base.toolCalls) > 0 || base.audio.ID != "" || fx.Expect.Restarts
		ended = got.text == base.text+extra && (got.acc == base.acc+extra && !restarted || got.acc == extra && restarted) && got.err == nil
	}
	switch {
	case whole:
		want := fx
		if pol.held {
			// The caller's TTFT is the time to the first token it
			// received, no earlier than the commit (Probation).
			want.Expect.TTFTMS = 0
		}
		checkConformance(t, who, want, got)
		checkSameRead(t, who, base, got)
		// One attempt won; a hedge started meanwhile lost (Hedge).
		for i, a := range got.tm.Attempts {
			if i == 0 && a.Outcome != tokenpace.OutcomeWon || i > 0 && (a.Kind != tokenpace.AttemptHedge || a.Outcome != tokenpace.OutcomeHedgeLost) {
				t.Errorf("%s: attempts %v (%v), want the first won and any other a hedge that lost: the answer was whole", who, kinds(got.tm), outcomes(got.tm))
				break
			}
		}
	case fx.Expect.RouterEnds && !pol.held && !pol.buffered, // a content policy blocked what the next route would write
		!base.received.IsZero() && !pol.held && !pol.buffered: // the output reached the caller: no fallback, no Continue
		if !ended {
			t.Errorf("%s: read %q (accumulated %q, reasoning %q), Err() = %v; want the Client's %q (%q, %q), %v",
				who, got.text, got.acc, got.reasoning, got.err, base.text, base.acc, base.reasoning, base.err)
		}
	case fx.Expect.Empty, base.received.IsZero():
		// Nothing of the first route reached the caller: the second
		// route answers alone.
		if !fellBack {
			t.Errorf("%s: read %q (accumulated %q), Err() = %v; want the second route's %q alone", who, got.text, got.acc, got.err, extra)
		}
	default:
		// Held or buffered output that broke: it falls back invisibly, or
		// it was delivered and the call ends with it.
		if !fellBack && !ended {
			t.Errorf("%s: read %q (accumulated %q, reasoning %q), Err() = %v; want the Client's %q (%q, %q), %v, or the second route's %q alone",
				who, got.text, got.acc, got.reasoning, got.err, base.text, base.acc, base.reasoning, base.err, extra)
		}
		// An output that waits for its validation never reaches the
		// caller before it ends: broken, it falls back while a route is
		// left, which only a hedge takes (Policy.RetryInvalid).
		if pol.buffered && !pol.hedges && !fellBack {
			t.Errorf("%s: read %q, Err() = %v, attempts %v; want the second route's %q alone: a route was left",
				who, got.text, got.err, kinds(got.tm), extra)
		}
	}
	if a := got.tm.Attempts; fellBack && (got.tm.Target != "second" || len(a) == 0 || a[len(a)-1].Target != "second" || a[len(a)-1].Outcome != tokenpace.OutcomeWon) {
		t.Errorf("%s: Target %q, attempts %v (%v); want the second route's last attempt won", who, got.tm.Target, kinds(got.tm), outcomes(got.tm))
	}
	if got.received.IsZero() {
		if got.tm.TTFT() != 0 && baseTTFT == 0 {
			t.Errorf("%s: TTFT %v, want 0: no output reached the caller, as the Client's did not", who, got.tm.TTFT())
		}
		return
	}
	ttft, recv := got.tm.TTFT(), got.received.Sub(start)
	switch {
	case pol.buffered:
		// Timing keeps the arrival times (Policy.RetryInvalid): of the
		// whole answer's first token, the Client's; never after the
		// caller received it.
		if whole && ttft != baseTTFT || ttft <= 0 || ttft > recv {
			t.Errorf("%s: TTFT %v, want the first token's arrival (the Client's %v), by %v, when it reached the caller", who, ttft, baseTTFT, recv)
		}
	case pol.held && !fellBack:
		// Where the Client's TTFT is not when its caller saw the first
		// output this reader looks at (an output it does not read, such
		// as reasoning_details), only the order is checked.
		if ttft != recv && base.tm.TTFT() == base.received.Sub(base.tm.Start) || ttft < baseTTFT {
			t.Errorf("%s: TTFT %v, want %v, when the first output reached the caller (the Client's TTFT %v)", who, ttft, recv, baseTTFT)
		}
	case fellBack:
		if ttft != recv {
			t.Errorf("%s: TTFT %v, want %v, when the first output reached the caller (the Client's TTFT %v)", who, ttft, recv, baseTTFT)
		}
	default:
		if ttft != baseTTFT {
			t.Errorf("%s: TTFT %v, want the Client's %v", who, ttft, baseTTFT)
		}
	}
}

// checkSameRead checks that got holds what base, a Client caller's read,
// holds.
func checkSameRead(t *testing.T, who string, base, got read) {
	t.Helper()
	if got.text != base.text || got.acc != base.acc || got.reasoning != base.reasoning || got.accReasoning != base.accReasoning {
		t.Errorf("%s: read %q (accumulated %q, reasoning %q, %q), want the Client's %q (%q, %q, %q)",
			who, got.text, got.acc, got.reasoning, got.accReasoning, base.text, base.acc, base.reasoning, base.accReasoning)
	}
	if got.accFinish != base.accFinish || got.tm.FinishReason != base.tm.FinishReason {
		t.Errorf("%s: finish %q (accumulated %q), want the Client's %q (%q)", who, got.tm.FinishReason, got.accFinish, base.tm.FinishReason, base.accFinish)
	}
	if len(got.toolCalls) != len(base.toolCalls) {
		t.Errorf("%s: %d tool calls, want the Client's %d", who, len(got.toolCalls), len(base.toolCalls))
	}
	for i := range min(len(got.toolCalls), len(base.toolCalls)) {
		if g, b := got.toolCalls[i], base.toolCalls[i]; g.ID != b.ID || g.Function.Name != b.Function.Name || g.Function.Arguments != b.Function.Arguments ||
			g.Custom.Name != b.Custom.Name || g.Custom.Input != b.Custom.Input {
			t.Errorf("%s: tool call %d = %+v, want the Client's %+v", who, i, g, b)
		}
	}
	g, b := got.tm, base.tm
	if g.UsageReported != b.UsageReported || g.PromptTokens != b.PromptTokens || g.OutputTokens != b.OutputTokens || g.CachedTokens != b.CachedTokens {
		t.Errorf("%s: usage (%v, %d, %d, %d cached), want the Client's (%v, %d, %d, %d)", who,
			g.UsageReported, g.PromptTokens, g.OutputTokens, g.CachedTokens, b.UsageReported, b.PromptTokens, b.OutputTokens, b.CachedTokens)
	}
	if got.accUsage != nil && base.accUsage != nil && got.accUsage.RawJSON() != base.accUsage.RawJSON() {
		t.Errorf("%s: Accumulated().Usage %s, want the Client's %s", who, got.accUsage.RawJSON(), base.accUsage.RawJSON())
	}
	if got.images != base.images || got.accImages != base.accImages || got.audio.ID != base.audio.ID || got.audio.Transcript != base.audio.Transcript {
		t.Errorf("%s: images %d/%d, audio %q, want the Client's %d/%d, %q", who, got.images, got.accImages, got.audio.ID, base.images, base.accImages, base.audio.ID)
	}
	if got.err != nil {
		t.Errorf("%s: Err() = %v, want nil", who, got.err)
	}
}

// sameError reports whether a and b are both nil or StreamErrors of one
// kind, or errors of one text.
func sameError(a, b error) bool {
	var sa, sb *tokenpace.StreamError
	if errors.As(a, &sa) && errors.As(b, &sb) {
		return sa.Kind == sb.Kind
	}
	return a == nil && b == nil || a != nil && b != nil && a.Error() == b.Error()
}

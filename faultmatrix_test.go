package tokenpace_test

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// TestFaultMatrix runs every fault the simulator injects, and four that
// scripted servers produce (a body without [DONE], a wrong content type, an
// over-long line, an over-long event), against every policy, on virtual
// time. The primary route "big" suffers the fault; the
// fallback "small" is healthy. Each cell checks what the caller sees: the
// outcome (a clean stream or a typed error), its text in order with no
// token lost or repeated, its figures as it lived them, one Done and at
// most one FirstToken, a Timing complete, and every breaker admission
// answered exactly once. TestMain checks that no goroutine is left.
func TestFaultMatrix(t *testing.T) {
	const n = 8 // tokens of every reply
	// want holds the outcome under each policy, in the order of policies:
	// "ok" a clean stream, "budget" a *BudgetError, else the kind of the
	// *StreamError.
	const sse = "text/event-stream"
	bigEvent := func(i int) string {
		return contentEvent(map[bool]string{true: "B1", false: " B" + strconv.Itoa(i)}[i == 1])
	}
	faults := []struct {
		name, header string
		handler      http.Handler // instead of the simulator, for the primary
		want         [5]string
	}{
		{"none", "none", nil, [5]string{"ok", "ok", "ok", "ok", "ok"}},
		{"429", "429;for=1s", nil, [5]string{"request failed", "ok", "ok", "ok", "ok"}},
		{"500", "500", nil, [5]string{"request failed", "ok", "ok", "ok", "ok"}},
		{"503", "503", nil, [5]string{"request failed", "ok", "ok", "ok", "ok"}},
		{"reset", "reset;after=3", nil, [5]string{"stream reset", "stream reset", "stream reset", "stream reset", "ok"}},
		{"malformed", "malformed;after=3", nil, [5]string{"malformed event", "malformed event", "malformed event", "malformed event", "ok"}},
		{"stall", "stall;for=2s;after=3", nil, [5]string{"ok", "budget", "budget", "budget", "ok"}},
		{"slow-headers", "slow-headers;for=1s", nil, [5]string{"ok", "budget", "ok", "ok", "ok"}},
		{"truncated", "", script(sse, bigEvent(1), bigEvent(2), bigEvent(3)),
			[5]string{"stream truncated", "stream truncated", "stream truncated", "stream truncated", "ok"}},
		{"content-type", "", script("application/json", `{"id":"x"}`),
			[5]string{"wrong content type", "ok", "ok", "ok", "ok"}},
		{"line-too-long", "", script(sse, bigEvent(1), bigEvent(2), contentEvent(strings.Repeat("x", 70<<10))),
			[5]string{"too large", "too large", "too large", "too large", "ok"}},
		{"event-too-long", "", script(sse, bigEvent(1), bigEvent(2), strings.Repeat("data: "+strings.Repeat("x", 1<<10)+"\n", 100)+"\n"),
			[5]string{"too large", "too large", "too large", "too large", "ok"}},
	}
	budget := tokenpace.Budget{TTFT: 500 * msec, Gap: 300 * msec}
	policies := []struct {
		name   string
		policy tokenpace.Policy
		single bool // the primary alone
	}{
		{name: "none", policy: tokenpace.Policy{}, single: true},
		{name: "failfast", policy: tokenpace.Policy{Budget: budget, FailFast: true}},
		{name: "fallback", policy: tokenpace.Policy{Budget: budget}},
		{name: "hedge", policy: tokenpace.Policy{Budget: budget, Hedge: tokenpace.Hedge{After: 100 * msec}}},
		{name: "continue", policy: tokenpace.Policy{Budget: budget, Continue: true}},
	}
	for _, f := range faults {
		for i, p := range policies {
			t.Run(f.name+"/"+p.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					runFaultCell(t, n, f.header, f.handler, f.want[i], p.policy, p.single)
				})
			})
		}
	}
}

// countingBreaker is a closed Breaker that counts admissions and answers.
type countingBreaker struct {
	extBreaker
	allowed int
}

func (b *countingBreaker) Allow() (func(error), error) {
	b.mu.Lock()
	b.allowed++
	b.mu.Unlock()
	return b.extBreaker.Allow()
}

var tokenRE = regexp.MustCompile(`[BS]\d+`)

func runFaultCell(t *testing.T, n int, fault string, handler http.Handler, want string, p tokenpace.Policy, single bool) {
	t.Helper()
	var dones, firsts int
	hooks := tokenpace.Hooks{
		Done:       func(context.Context, *tokenpace.Timing) { dones++ },
		FirstToken: func(context.Context, tokenpace.FirstTokenInfo) { firsts++ },
	}
	c := simClient(t, []simulate.Option{
		simulate.WithModel("big", &simulate.Fixed{TTFT: 50 * msec, ITL: 20 * msec}),
		simulate.WithModel("small", &simulate.Fixed{TTFT: 50 * msec, ITL: 20 * msec}),
		replyByModel(n),
	}, tokenpace.WithHooks(hooks), tokenpace.WithMaxLineBytes(64<<10))
	brs := map[string]*countingBreaker{"big": {}, "small": {}}
	big := route("big")
	big.Options = []option.RequestOption{withFault(fault)}
	if handler != nil {
		url, hc := serve(t, handler)
		oc := openaiClient(url, hc)
		big.Client, big.Options = &oc, nil
	}
	big.Breaker = brs["big"]
	routes := []tokenpace.Route{big}
	if !single {
		small := route("small")
		small.Breaker = brs["small"]
		routes = append(routes, small)
	}
	r, err := tokenpace.NewRouter(c, p, routes...)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	s := r.NewStreaming(context.Background(), chat("big", n))
	var text string
	var firstAt time.Time
	for s.Next() {
		if firstAt.IsZero() {
			firstAt = time.Now()
		}
		for _, ch := range s.Current().Choices {
			text += ch.Delta.Content
		}
	}
	endAt := time.Now()
	err = s.Err()
	s.Close()
	tm := s.Timing()

	// The outcome: a clean stream, or a typed error.
	var se *tokenpace.StreamError
	var be *tokenpace.BudgetError
	got := "ok"
	switch {
	case err == nil:
	case errors.As(err, &be):
		got = "budget"
	case errors.As(err, &se):
		got = se.Kind.String()
	default:
		t.Fatalf("Err() = %v (%T), want nil, a *BudgetError or a *StreamError", err, err)
	}
	if got != want {
		t.Errorf("outcome = %s (Err() = %v), want %s", got, err, want)
	}

	// The text: B1..Bk then S1..Sm, in order, nothing repeated; all n
	// tokens after a clean end.
	toks := tokenRE.FindAllString(text, -1)
	nb, ns := 0, 0
	for _, tok := range toks {
		i, _ := strconv.Atoi(tok[1:])
		switch {
		case tok[0] == 'B' && ns == 0 && i == nb+1:
			nb++
		case tok[0] == 'S' && i == ns+1:
			ns++
		default:
			t.Fatalf("text %q: token %s out of order", text, tok)
		}
	}
	if err == nil && nb+ns != n {
		t.Errorf("text %q has %d tokens, want %d", text, nb+ns, n)
	}

	// The figures are the caller's.
	if len(toks) > 0 {
		if got, want := tm.TTFT(), firstAt.Sub(start)-tm.Queue(); got != want {
			t.Errorf("TTFT() = %v, want %v (the caller's first token)", got, want)
		}
	}
	if got, want := tm.End.Sub(tm.Start), endAt.Sub(start); got != want {
		t.Errorf("End - Start = %v, want %v (when the caller saw the end)", got, want)
	}
	if tm.OutputTokens < len(toks) || len(tm.Chunks) != len(toks) {
		t.Errorf("Timing: %d chunks, %d tokens, want %d", len(tm.Chunks), tm.OutputTokens, len(toks))
	}
	if tm.Err != err || len(tm.Attempts) == 0 {
		t.Errorf("Timing: Err %v, %d attempts, want %v and at least one", tm.Err, len(tm.Attempts), err)
	}

	// Hooks once; every breaker admission answered once.
	if dones != 1 {
		t.Errorf("Done called %d times, want 1", dones)
	}
	if want := min(len(toks), 1); firsts != want {
		t.Errorf("FirstToken called %d times, want %d", firsts, want)
	}
	for name, b := range brs {
		b.mu.Lock()
		if b.allowed != len(b.outcomes) {
			t.Errorf("breaker %s: %d admissions, %d answers, want as many", name, b.allowed, len(b.outcomes))
		}
		b.mu.Unlock()
	}
}

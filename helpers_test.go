package tokenpace_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/sony/gobreaker/v2"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// simClient returns a tokenpace Client of a simulator started with sopts,
// in memory (virtual time inside a synctest bubble), without retries.
func simClient(t *testing.T, sopts []simulate.Option, opts ...tokenpace.Option) *tokenpace.Client {
	t.Helper()
	ts := simulate.StartInMemory(t, sopts...)
	return tokenpace.NewClient(openaiClient(ts.URL, ts.Client), opts...)
}

// openaiClient returns an openai-go client of baseURL without retries.
func openaiClient(baseURL string, hc option.HTTPClient) openai.Client {
	return openai.NewClient(
		option.WithBaseURL(baseURL),
		option.WithHTTPClient(hc),
		option.WithAPIKey("sk-test-secret"),
		option.WithMaxRetries(0),
	)
}

// chat returns streaming chat params for model with max_tokens n.
func chat(model string, n int) openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{
		Model:     model,
		Messages:  []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Tell me about latency.")},
		MaxTokens: openai.Int(int64(n)),
	}
}

// drain reads s to its end, sleeping pause after each chunk like a slow
// caller, and returns the chunks read.
func drain(t *testing.T, s *tokenpace.Stream[openai.ChatCompletionChunk], pause time.Duration) []openai.ChatCompletionChunk {
	t.Helper()
	var out []openai.ChatCompletionChunk
	for s.Next() {
		out = append(out, s.Current())
		if pause > 0 {
			time.Sleep(pause)
		}
	}
	return out
}

// record is a Hooks.Done that keeps every Timing it is given.
type record struct{ done []*tokenpace.Timing }

func (r *record) hooks() tokenpace.Hooks {
	return tokenpace.Hooks{Done: func(_ context.Context, t *tokenpace.Timing) { r.done = append(r.done, t) }}
}

// checkKind fails t unless err is a *tokenpace.StreamError of kind want.
func checkKind(t *testing.T, err error, want tokenpace.ErrorKind) *tokenpace.StreamError {
	t.Helper()
	var se *tokenpace.StreamError
	if !errorsAs(err, &se) {
		t.Fatalf("Err() = %v (%T), want a *StreamError of kind %v", err, err, want)
	}
	if se.Kind != want {
		t.Fatalf("Err().Kind = %v, want %v (err %v)", se.Kind, want, err)
	}
	return se
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }

// withFault asks the simulator for a fault (see simulate.FaultHeader).
func withFault(f string) option.RequestOption { return option.WithHeader(simulate.FaultHeader, f) }

// words returns "w<from> w<from+1> ... w<to>", with a leading space unless
// from is 1: the scripted replies of the routing tests.
func words(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		if i > 1 {
			b.WriteByte(' ')
		}
		b.WriteString("w")
		b.WriteString(strconv.Itoa(i))
	}
	return b.String()
}

// replyWords scripts every reply of a simulator as words(1, n).
func replyWords(n int) simulate.Option {
	return simulate.WithReply(func(simulate.ReplyInfo) (string, bool) { return words(1, n), true })
}

// router returns a Router over a Client of one in-memory simulator started
// with sopts, with one route per model name.
func router(t *testing.T, p tokenpace.Policy, sopts []simulate.Option, routes ...tokenpace.Route) *tokenpace.Router {
	t.Helper()
	r, err := tokenpace.NewRouter(simClient(t, sopts), p, routes...)
	if err != nil {
		t.Fatalf("NewRouter() error = %v", err)
	}
	return r
}

// stallingRouter returns a Router whose route "big" (timed big) stalls
// after stallAfter tokens, continued after 100 ms of silence on route
// "small" (timed small), on one in-memory simulator started with sopts
// too.
func stallingRouter(t *testing.T, stallAfter int, big, small simulate.Fixed, sopts ...simulate.Option) *tokenpace.Router {
	t.Helper()
	b := route("big")
	b.Options = []option.RequestOption{withFault(fmt.Sprintf("stall;for=5s;after=%d", stallAfter))}
	sopts = append([]simulate.Option{simulate.WithModel("big", &big), simulate.WithModel("small", &small)}, sopts...)
	return router(t, tokenpace.Policy{Budget: tokenpace.Budget{Gap: 100 * msec}, Continue: true}, sopts, b, route("small"))
}

// route returns a Route to model name on the Client's endpoint.
func route(name string) tokenpace.Route {
	return tokenpace.Route{Name: name, Model: name}
}

// readAll reads s to its end and returns the content of its first choice.
func readAll(t *testing.T, s *tokenpace.Stream[openai.ChatCompletionChunk]) string {
	t.Helper()
	var b strings.Builder
	for s.Next() {
		for _, ch := range s.Current().Choices {
			if ch.Index == 0 {
				b.WriteString(ch.Delta.Content)
			}
		}
	}
	s.Close()
	return b.String()
}

// callOK makes a Router call with params, reads it to its end, fails t
// unless it ended cleanly, and returns its Timing.
func callOK(t *testing.T, r *tokenpace.Router, params openai.ChatCompletionNewParams) *tokenpace.Timing {
	t.Helper()
	s := r.NewStreaming(context.Background(), params)
	readAll(t, s)
	if err := s.Err(); err != nil {
		t.Fatalf("Err() = %v, want nil", err)
	}
	return s.Timing()
}

// checkBudgetError fails t unless err is a *BudgetError equal to want.
func checkBudgetError(t *testing.T, err error, want tokenpace.BudgetError) {
	t.Helper()
	var be *tokenpace.BudgetError
	if !errors.As(err, &be) {
		t.Fatalf("Err() = %v (%T), want a *BudgetError", err, err)
	}
	if *be != want {
		t.Errorf("Err() = %+v, want %+v", *be, want)
	}
	if !errors.Is(err, tokenpace.ErrBudgetExceeded) {
		t.Errorf("errors.Is(%v, ErrBudgetExceeded) = false, want true", err)
	}
}

// kinds returns the kind of every attempt of tm.
func kinds(tm *tokenpace.Timing) []tokenpace.AttemptKind {
	var k []tokenpace.AttemptKind
	for _, a := range tm.Attempts {
		k = append(k, a.Kind)
	}
	return k
}

// outcomes returns the outcome of every attempt of tm.
func outcomes(tm *tokenpace.Timing) []tokenpace.Outcome {
	var o []tokenpace.Outcome
	for _, a := range tm.Attempts {
		o = append(o, a.Outcome)
	}
	return o
}

// routedStream is what the policy table reads from a Router stream of any
// API: its text, its error and its timing.
type routedStream interface {
	Text() string
	Err() error
	Timing() *tokenpace.Timing
}

// testRouterPolicies runs one Router stream per policy, opened by open over
// a big and a small model that reply "B1 B2 …" and "S1 S2 …", and checks
// what the caller reads (read's text and Text()), the error, the API
// recorded in the timing, the attempts' outcomes and the caller's TTFT.
func testRouterPolicies(t *testing.T, api tokenpace.API, open func(r *tokenpace.Router) (s routedStream, text string)) {
	t.Helper()
	stall := option.WithHeader(simulate.FaultHeader, "stall;for=5s;after=2")
	tests := []struct {
		name     string
		pol      tokenpace.Policy
		bigTTFT  time.Duration
		bigOpts  []option.RequestOption
		want     string
		outcomes []tokenpace.Outcome
		ttft     time.Duration
		err      *tokenpace.BudgetError
	}{
		{name: "plain", bigTTFT: 100 * msec, want: "B1 B2 B3 B4",
			outcomes: []tokenpace.Outcome{tokenpace.OutcomeWon}, ttft: 100 * msec},
		{name: "fallback", pol: tokenpace.Policy{Budget: tokenpace.Budget{TTFT: 150 * msec}}, bigTTFT: time.Second,
			want: "S1 S2 S3 S4", outcomes: []tokenpace.Outcome{tokenpace.OutcomeBreached, tokenpace.OutcomeWon}, ttft: 200 * msec},
		{name: "hedge", pol: tokenpace.Policy{Hedge: tokenpace.Hedge{After: 20 * msec}}, bigTTFT: time.Second,
			want: "S1 S2 S3 S4", outcomes: []tokenpace.Outcome{tokenpace.OutcomeHedgeLost, tokenpace.OutcomeWon}, ttft: 70 * msec},
		{name: "budget breach", pol: tokenpace.Policy{Budget: tokenpace.Budget{Gap: 100 * msec}}, bigTTFT: 100 * msec, bigOpts: []option.RequestOption{stall},
			want: "B1 B2", outcomes: []tokenpace.Outcome{tokenpace.OutcomeBreached}, ttft: 100 * msec,
			err: &tokenpace.BudgetError{Target: "big", Phase: tokenpace.PhaseGap, Limit: 100 * msec, Observed: 100 * msec}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				big := route("big")
				big.Options = tt.bigOpts
				r := router(t, tt.pol, []simulate.Option{
					simulate.WithModel("big", &simulate.Fixed{TTFT: tt.bigTTFT, ITL: 10 * msec}),
					simulate.WithModel("small", &simulate.Fixed{TTFT: 50 * msec, ITL: 10 * msec}),
					replyByModel(4),
				}, big, route("small"))
				s, text := open(r)
				if text != tt.want || s.Text() != tt.want {
					t.Errorf("text = %q, Text() = %q, want %q", text, s.Text(), tt.want)
				}
				if tt.err != nil {
					checkBudgetError(t, s.Err(), *tt.err)
				} else if err := s.Err(); err != nil {
					t.Fatalf("Err() = %v, want nil", err)
				}
				tm := s.Timing()
				if tm.API != api {
					t.Errorf("API = %q, want %q", tm.API, api)
				}
				if got := outcomes(tm); !slices.Equal(got, tt.outcomes) {
					t.Errorf("outcomes = %v, want %v", got, tt.outcomes)
				}
				if got := tm.UserTTFT(); got != tt.ttft {
					t.Errorf("UserTTFT() = %v, want %v", got, tt.ttft)
				}
			})
		})
	}
}

// captureBody is a request option that keeps the body of each request the
// client sends in *body, the last one there.
func captureBody(body *[]byte) option.RequestOption {
	return option.WithMiddleware(func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		*body, _ = io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(*body))
		return next(req)
	})
}

// isErrorEvent reports whether err is a server's error event
// (KindErrorEvent) whose openai.Error has status and message.
func isErrorEvent(err error, status int, message string) bool {
	var ae *openai.Error
	var se *tokenpace.StreamError
	return errors.As(err, &se) && se.Kind == tokenpace.KindErrorEvent && errors.As(err, &ae) &&
		ae.StatusCode == status && ae.Message == message
}

// wantResponsesFailed replays fx, a Responses stream that ends in a
// failure the server reports, through a Client and then a Router under
// p (see wantResponsesBreaker): the Client's caller must get an error
// event with the server's message and status, the fixture's text, and
// one request sent.
func wantResponsesFailed(t *testing.T, fx conformance, p tokenpace.Policy, status int, closed bool) {
	t.Helper()
	model := fx.Request.Body.Model
	var sent atomic.Int32
	counted := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sent.Add(1)
		replay(fx.recording)(w, r)
	})
	url, hc := serve(t, byModel(map[string]http.Handler{model: counted, "second": secondRoute}))
	c := tokenpace.NewClient(openaiClient(url, hc))
	got := readResponseStream(c.NewResponseStreaming(context.Background(), respond(model, 64)))
	if !isErrorEvent(got.err, status, fx.Expect.ErrorMessage) || got.text != fx.Expect.Text {
		t.Errorf("Client: text %q, err %v; want %q and an error event with the server's message and status %d",
			got.text, got.err, fx.Expect.Text, status)
	}
	if n := sent.Load(); n != 1 {
		t.Errorf("Client: sent %d times, want 1", n)
	}
	wantResponsesBreaker(t, c, p, model, closed)
}

// wantResponsesBreaker makes 12 Responses calls for model through a
// Router on c, its route "first" and then "second", more than the 5
// failures that open a breaker; each must end with the second route's
// answer, and the first route's breaker must then be closed or not as
// closed says.
func wantResponsesBreaker(t *testing.T, c *tokenpace.Client, p tokenpace.Policy, model string, closed bool) {
	t.Helper()
	rt, err := tokenpace.NewRouter(c, p, tokenpace.Route{Name: "first", Model: model}, route("second"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 12 {
		got := readResponseStream(rt.NewResponseStreaming(context.Background(), respond(model, 64)))
		if got.err != nil || !strings.HasSuffix(got.text, extra) {
			t.Fatalf("Router call %d: text %q, err %v; want the next route's answer", i, got.text, got.err)
		}
	}
	if st, ok := rt.BreakerState("first"); !ok || (st == gobreaker.StateClosed) != closed {
		t.Errorf("breaker %v after 12 calls, want closed: %v", st, closed)
	}
}

// breakerOfOne serves the fixture testdata/conformance/name.jsonl and
// returns a Router of one route to it, named "first", whose breaker opens
// at one failure, and the fixture.
func breakerOfOne(t *testing.T, name string) (*tokenpace.Router, conformance) {
	t.Helper()
	var fx conformance
	fx.Reads = readFixture(t, "testdata/conformance/"+name+".jsonl", &fx)
	url, hc := serve(t, byModel(map[string]http.Handler{fx.Request.Body.Model: replay(fx.recording)}))
	r, err := tokenpace.NewRouter(tokenpace.NewClient(openaiClient(url, hc)),
		tokenpace.Policy{Breaker: tokenpace.BreakerSettings{Failures: 1}},
		tokenpace.Route{Name: "first", Model: fx.Request.Body.Model})
	if err != nil {
		t.Fatal(err)
	}
	return r, fx
}

// wantRefusalsNotCounted replays the fixture testdata/conformance/name.jsonl
// twice through a Router whose breaker opens at one failure; call makes
// one call of the fixture's API for its model and returns the stream's
// error once read. Each caller must get status with the server's message,
// and neither an open breaker: a server's refusal of the request is not
// its failure. It runs inside a synctest bubble.
func wantRefusalsNotCounted(t *testing.T, name string, status int, call func(r *tokenpace.Router, model string) error) {
	t.Helper()
	r, fx := breakerOfOne(t, name)
	for i := range 2 {
		err := call(r, fx.Request.Body.Model)
		if errors.Is(err, tokenpace.ErrCircuitOpen) {
			t.Fatalf("call %d: %v; the refusals opened the breaker", i+1, err)
		}
		var ae *openai.Error
		if !errors.As(err, &ae) || ae.StatusCode != status || ae.Message != fx.Expect.ErrorMessage {
			t.Errorf("call %d: Err() = %v; want status %d with the server's message %q", i+1, err, status, fx.Expect.ErrorMessage)
		}
	}
}

// wantStatus replays the fixture testdata/conformance/name.jsonl through
// a Client: the caller must get status with the server's message. It runs
// inside a synctest bubble.
func wantStatus(t *testing.T, name string, status int) {
	t.Helper()
	var fx conformance
	fx.Reads = readFixture(t, "testdata/conformance/"+name+".jsonl", &fx)
	url, hc := serve(t, byModel(map[string]http.Handler{fx.Request.Body.Model: replay(fx.recording)}))
	s := tokenpace.NewClient(openaiClient(url, hc)).NewStreaming(context.Background(), chat(fx.Request.Body.Model, 64))
	readAll(t, s)
	var ae *openai.Error
	if !errors.As(s.Err(), &ae) || ae.StatusCode != status || ae.Message != fx.Expect.ErrorMessage {
		t.Errorf("Err() = %v; want status %d with the server's message %q", s.Err(), status, fx.Expect.ErrorMessage)
	}
}

// wantFailureCounted replays the fixture testdata/conformance/name.jsonl,
// whose stream ends in a failure the route answers for (the server's own,
// or a limit), through a Router whose breaker opens at one failure; call
// makes one call of the fixture's API for its model and returns the
// stream's error once read. The caller must get status with the server's
// message, and the next call must find the breaker open. It runs inside a
// synctest bubble.
func wantFailureCounted(t *testing.T, name string, status int, call func(r *tokenpace.Router, model string) error) {
	t.Helper()
	r, fx := breakerOfOne(t, name)
	var ae *openai.Error
	if err := call(r, fx.Request.Body.Model); !errors.As(err, &ae) || ae.StatusCode != status || ae.Message != fx.Expect.ErrorMessage {
		t.Errorf("Err() = %v; want status %d with the server's message %q", err, status, fx.Expect.ErrorMessage)
	}
	if err := call(r, fx.Request.Body.Model); !errors.Is(err, tokenpace.ErrCircuitOpen) {
		t.Errorf("second call: Err() = %v; want the breaker open", err)
	}
}

// chatErr makes a streamed chat call for model on r, reads it to its end,
// and returns its error (a call of wantRefusalsNotCounted).
func chatErr(t *testing.T) func(r *tokenpace.Router, model string) error {
	return func(r *tokenpace.Router, model string) error {
		s := r.NewStreaming(context.Background(), chat(model, 64))
		readAll(t, s)
		return s.Err()
	}
}

// completionErr makes a streamed completions call for model on r, reads
// it to its end, and returns its error (a call of
// wantRefusalsNotCounted).
func completionErr(t *testing.T) func(r *tokenpace.Router, model string) error {
	return func(r *tokenpace.Router, model string) error {
		s := r.NewCompletionStreaming(context.Background(), openai.CompletionNewParams{
			Model: openai.CompletionNewParamsModel(model), Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("def add")}})
		for s.Next() {
		}
		s.Close()
		return s.Err()
	}
}

// wantSentAndCounted makes two streamed chat calls for model, to h at
// base, through a Router whose breaker opens at one failure (openai-go
// retrying twice). The first caller must get a KindRequest error of
// status with msg, after requests requests to path; the second must
// find the breaker open or not as open says, and, closed, get the same
// error after as many requests again.
func wantSentAndCounted(t *testing.T, h func(w http.ResponseWriter, r *http.Request, body []byte), base, path, model string,
	status int, msg string, requests int, open bool) {
	t.Helper()
	_, hc, counts := serveCounting(t, h)
	c := tokenpace.NewClient(openai.NewClient(option.WithBaseURL(base), option.WithHTTPClient(hc),
		option.WithAPIKey("sk-test-secret"), option.WithMaxRetries(2)))
	r, err := tokenpace.NewRouter(c, tokenpace.Policy{Breaker: tokenpace.BreakerSettings{Failures: 1}},
		tokenpace.Route{Name: "first", Model: model})
	if err != nil {
		t.Fatal(err)
	}
	want := func(call int, err error) {
		t.Helper()
		var se *tokenpace.StreamError
		var ae *openai.Error
		if !errors.As(err, &se) || se.Kind != tokenpace.KindRequest || !errors.As(err, &ae) ||
			ae.StatusCode != status || ae.Message != msg {
			t.Errorf("call %d: Err() = %v; want a KindRequest %d with the server's message %q", call, err, status, msg)
		}
	}
	s := r.NewStreaming(context.Background(), chat(model, 64))
	readAll(t, s)
	want(1, s.Err())
	if n := counts.of(path); n != requests {
		t.Errorf("%d requests, want %d", n, requests)
	}
	s = r.NewStreaming(context.Background(), chat(model, 64))
	readAll(t, s)
	if got := errors.Is(s.Err(), tokenpace.ErrCircuitOpen); got != open {
		t.Fatalf("second call: Err() = %v; circuit open %v, want %v", s.Err(), got, open)
	}
	if !open {
		want(2, s.Err())
		if n := counts.of(path); n != 2*requests {
			t.Errorf("%d requests for 2 calls, want %d", n, 2*requests)
		}
	}
}

// fixture reads testdata/conformance/name.jsonl.
func fixture(t *testing.T, name string) conformance {
	t.Helper()
	var fx conformance
	fx.Reads = readFixture(t, "testdata/conformance/"+name+".jsonl", &fx)
	return fx
}

// answer429 answers every request 429 with body, as JSON.
func answer429(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte(body))
	}
}

// sentWant is what the caller of a model answered 429 must get: the
// server's message, once the request was sent that many times.
type sentWant struct {
	message string
	sent    int32
}

// wantSent serves handlers by model and calls each model of want once
// through a Client whose openai-go retries twice: the caller must get the
// server's 429 with its message, the request sent as many times as want
// says (once for a limit that lasts, 3 for one that passes).
func wantSent(t *testing.T, handlers map[string]http.Handler, want map[string]sentWant) {
	t.Helper()
	var asked sync.Map
	for model, h := range handlers {
		n := new(atomic.Int32)
		asked.Store(model, n)
		handlers[model] = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { n.Add(1); h.ServeHTTP(w, r) })
	}
	url, hc := serve(t, byModel(handlers))
	c := tokenpace.NewClient(openaiClient(url, hc))
	for model, want := range want {
		s := c.NewStreaming(context.Background(), chat(model, 16), option.WithMaxRetries(2))
		for s.Next() {
		}
		_ = s.Close()
		var ae *openai.Error
		if !errors.As(s.Err(), &ae) || ae.StatusCode != http.StatusTooManyRequests || ae.Message != want.message {
			t.Errorf("%s: err %v; want the server's 429 with its message %q", model, s.Err(), want.message)
		}
		n, _ := asked.Load(model)
		if got := n.(*atomic.Int32).Load(); got != want.sent {
			t.Errorf("%s: sent %d times, want %d", model, got, want.sent)
		}
	}
}

// answeringClient returns a Client whose every request is answered 200
// with body, of the content type ct, in process.
func answeringClient(ct, body string) *tokenpace.Client {
	return tokenpace.NewClient(openai.NewClient(option.WithBaseURL("http://in-process.invalid/v1/"), option.WithAPIKey("x"),
		option.WithMaxRetries(0), option.WithHTTPClient(&http.Client{Transport: fixedTransport(func() *http.Response {
			return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {ct}},
				Body: io.NopCloser(strings.NewReader(body))}
		})})))
}

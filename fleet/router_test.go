package fleet_test

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/sony/gobreaker/v2"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/fleet"
	"github.com/tokenpace/tokenpace/simulate"
)

// backend is a simulator whose route "a" fails with a 500 while failing
// is set, and counts the requests that reach it.
type backend struct {
	ts      *simulate.TestServer
	failing atomic.Bool
	sent    atomic.Int64 // requests sent to route a
}

func newBackend(t *testing.T) *backend {
	t.Helper()
	return &backend{ts: simulate.StartLoopback(t, simulate.WithModel("m", &simulate.Fixed{}))}
}

// RoundTrip sends route a's requests, with a fault while failing is set.
func (b *backend) RoundTrip(req *http.Request) (*http.Response, error) {
	b.sent.Add(1)
	if b.failing.Load() {
		req = req.Clone(req.Context())
		req.Header.Set(simulate.FaultHeader, "500")
	}
	return b.ts.Client.Transport.RoundTrip(req)
}

// replica is one process of the fleet: a Router over routes a and b, a
// with the shared breaker and limit given, b plain and last.
func (b *backend) replica(t *testing.T, pol tokenpace.Policy, br tokenpace.Breaker, lim tokenpace.Limiter) *tokenpace.Router {
	t.Helper()
	return b.replicaVia(t, pol, br, lim, b)
}

// replicaVia is replica sending route a's requests through rt.
func (b *backend) replicaVia(t *testing.T, pol tokenpace.Policy, br tokenpace.Breaker, lim tokenpace.Limiter, rt http.RoundTripper) *tokenpace.Router {
	t.Helper()
	oc := func(hc option.HTTPClient) *openai.Client {
		c := openai.NewClient(option.WithBaseURL(b.ts.URL), option.WithHTTPClient(hc),
			option.WithAPIKey("sk-test-secret"), option.WithMaxRetries(0))
		return &c
	}
	a := tokenpace.Route{Name: "a", Client: oc(&http.Client{Transport: rt}), Breaker: br, Limiter: lim}
	plain := tokenpace.Route{Name: "b", Client: oc(b.ts.Client)}
	r, err := tokenpace.NewRouter(tokenpace.NewClient(*oc(b.ts.Client)), pol, a, plain)
	if err != nil {
		t.Fatalf("NewRouter: %v", err)
	}
	return r
}

// routed makes one call of maxTokens through r, reads it to its end and
// returns its Timing.
func routed(t *testing.T, r *tokenpace.Router, maxTokens int) *tokenpace.Timing {
	t.Helper()
	s := r.NewStreaming(context.Background(), openai.ChatCompletionNewParams{
		Model:     "m",
		Messages:  []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Tell me about latency.")},
		MaxTokens: openai.Int(int64(maxTokens)),
	})
	for s.Next() {
	}
	if err := s.Err(); err != nil {
		t.Fatalf("call: Err() = %v, want nil", err)
	}
	return s.Timing()
}

// checkAttempts fails t unless tm's attempts have the outcomes want, in
// order ("a:failed", "b:won").
func checkAttempts(t *testing.T, tm *tokenpace.Timing, want ...string) {
	t.Helper()
	var got []string
	for _, a := range tm.Attempts {
		got = append(got, a.Target+":"+string(a.Outcome))
	}
	if len(got) != len(want) {
		t.Fatalf("attempts = %v, want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("attempts = %v, want %v", got, want)
		}
	}
}

func TestRoutersShareBreaker(t *testing.T) {
	srv := startRedis(t)
	be := newBackend(t)
	const timeout = 100 * time.Millisecond
	bs := breakers(t, srv, 2, tokenpace.BreakerSettings{Failures: 2, Timeout: timeout})
	r1 := be.replica(t, tokenpace.Policy{}, bs[0], nil)
	r2 := be.replica(t, tokenpace.Policy{}, bs[1], nil)

	be.failing.Store(true)
	checkAttempts(t, routed(t, r1, 5), "a:failed", "b:won")
	flush(bs...)
	if s, _ := r2.BreakerState("a"); s != gobreaker.StateClosed {
		t.Fatalf("replica 2: BreakerState(a) after one failure = %v, want closed", s)
	}
	checkAttempts(t, routed(t, r2, 5), "a:failed", "b:won")
	flush(bs...)
	if s, _ := r1.BreakerState("a"); s != gobreaker.StateOpen {
		t.Fatalf("replica 1: BreakerState(a) after the fleet's two failures = %v, want open", s)
	}
	sent := be.sent.Load()
	tm := routed(t, r1, 5)
	checkAttempts(t, tm, "a:skipped", "b:won")
	if !errors.Is(tm.Attempts[0].Err, tokenpace.ErrCircuitOpen) {
		t.Fatalf("skipped attempt's Err = %v, want ErrCircuitOpen", tm.Attempts[0].Err)
	}
	if n := be.sent.Load() - sent; n != 0 {
		t.Fatalf("requests sent to a with its breaker open = %d, want 0", n)
	}

	// The breaker's timeout passes in real time (Redis is a real server).
	time.Sleep(timeout)
	be.failing.Store(false)
	if s, _ := r1.BreakerState("a"); s != gobreaker.StateHalfOpen {
		t.Fatalf("replica 1: BreakerState(a) after the timeout = %v, want half-open", s)
	}
	checkAttempts(t, routed(t, r2, 5), "a:won")
	flush(bs...)
	if s, _ := r1.BreakerState("a"); s != gobreaker.StateClosed {
		t.Fatalf("replica 1: BreakerState(a) after replica 2's probe succeeded = %v, want closed", s)
	}
}

func TestRoutersShareTPM(t *testing.T) {
	srv := startRedis(t)
	be := newBackend(t)
	ls := replicas(t, srv, 2, tokenpace.Limit{TPM: 1000})
	// A generous TTFT budget: the simulator answers at once, and the
	// shared limit's wait (tens of seconds) is what exceeds it.
	pol := tokenpace.Policy{Budget: tokenpace.Budget{TTFT: 10 * time.Second}}
	r1 := be.replica(t, pol, nil, ls[0])
	r2 := be.replica(t, pol, nil, ls[1])

	checkAttempts(t, routed(t, r1, 900), "a:won")
	// Replica 2 alone has used nothing, but the fleet has used 900 of
	// its 1000 tokens a minute: a second 900 would wait about 48 s.
	sent := be.sent.Load()
	tm := routed(t, r2, 900)
	checkAttempts(t, tm, "a:skipped", "b:won")
	if !errors.Is(tm.Attempts[0].Err, tokenpace.ErrAdmission) {
		t.Fatalf("skipped attempt's Err = %v, want ErrAdmission", tm.Attempts[0].Err)
	}
	if n := be.sent.Load() - sent; n != 0 {
		t.Fatalf("requests sent to a past admission = %d, want 0", n)
	}
	// The skipped request gave its reservation back (in the background):
	// a small one fits.
	ls[1].Flush()
	checkAttempts(t, routed(t, r2, 50), "a:won")
}

func TestRoutersDecideLocallyWithoutRedis(t *testing.T) {
	srv := startRedis(t)
	be := newBackend(t)
	var reported atomic.Int64
	onErr := fleet.WithErrorHandler(func(error) { reported.Add(1) })
	bs := breakers(t, srv, 1, tokenpace.BreakerSettings{Failures: 1}, onErr, fleet.WithRedisBackoff(time.Hour))
	lim, err := fleet.NewLimiter(srv.client(t), "a", tokenpace.Limit{TPM: 1000}, onErr, slack, fleet.WithBreaker(bs[0]))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lim.Close() })
	r := be.replica(t, tokenpace.Policy{Budget: tokenpace.Budget{TTFT: 10 * time.Second}}, bs[0], lim)
	checkAttempts(t, routed(t, r, 900), "a:won")
	bs[0].Flush()
	if reported.Load() != 0 {
		t.Fatalf("errors reported with Redis up = %d, want 0", reported.Load())
	}

	srv.stop()
	// Without Redis the route keeps a breaker and a limit, this
	// process's own: 900 more tokens pass (the local limit has not seen
	// the first 900), and a failure opens the local breaker.
	checkAttempts(t, routed(t, r, 900), "a:won")
	be.failing.Store(true)
	checkAttempts(t, routed(t, r, 5), "a:failed", "b:won")
	be.failing.Store(false)
	bs[0].Flush()
	checkAttempts(t, routed(t, r, 5), "a:skipped", "b:won")
	if reported.Load() == 0 {
		t.Fatalf("errors reported with Redis down = 0, want some")
	}
	if s, ok := r.BreakerState("a"); !ok || s != gobreaker.StateOpen {
		t.Fatalf("BreakerState(a) with Redis down after a failure = %v, %v, want open, true", s, ok)
	}
}

// TestRoutersShareTPMByUsage: a request sent without max_tokens is
// reserved for its prompt's estimate alone; what counts against the
// fleet's tokens per minute is what the server says it used, as with a
// Route's own Limit. Two replicas' answers of 900 tokens use up a TPM of
// 1000, and the next call skips the route rather than waiting for it
// past its TTFT budget; before Settle, the fleet counted a few tokens a
// call and admitted it.
func TestRoutersShareTPMByUsage(t *testing.T) {
	srv := startRedis(t)
	ts := simulate.StartLoopback(t, simulate.WithModel("m", &simulate.Fixed{}), simulate.WithMaxTokens(900))
	be := &backend{ts: ts}
	lims := replicas(t, srv, 2, tokenpace.Limit{TPM: 1000})
	pol := tokenpace.Policy{Budget: tokenpace.Budget{TTFT: 10 * time.Second}}
	r1, r2 := be.replica(t, pol, nil, lims[0]), be.replica(t, pol, nil, lims[1])
	call := func(r *tokenpace.Router) *tokenpace.Timing {
		t.Helper()
		s := r.NewStreaming(context.Background(), openai.ChatCompletionNewParams{
			Model:    "m",
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Tell me about latency.")},
		})
		for s.Next() {
		}
		if err := s.Err(); err != nil {
			t.Fatalf("call: Err() = %v, want nil", err)
		}
		return s.Timing()
	}
	if tm := call(r1); !tm.UsageReported || tm.OutputTokens != 900 {
		t.Fatalf("first call: usage reported %v, %d output tokens, want 900 reported", tm.UsageReported, tm.OutputTokens)
	}
	lims[0].Flush()
	checkAttempts(t, call(r2), "a:won")
	lims[1].Flush()
	checkAttempts(t, call(r1), "a:skipped", "b:won")
}

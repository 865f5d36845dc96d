package fleet_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/sony/gobreaker/v2"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/fleet"
)

// openTimeoutPassed ends the open state of srv's breaker "route-a" at
// once, as its timeout passing would: its expiry is set in the past, and
// the next read moves it on to half-open.
func openTimeoutPassed(t *testing.T, srv *redisServer) {
	t.Helper()
	if err := srv.client(t).HSet(context.Background(), "tokenpace:breaker:{route-a}", "e", 1).Err(); err != nil {
		t.Fatalf("HSET e: %v", err)
	}
}

// halfOpen returns n replicas of a breaker of settings s, opened by one
// failure and made half-open.
func halfOpen(t *testing.T, srv *redisServer, n int, s tokenpace.BreakerSettings) []*fleet.Breaker {
	t.Helper()
	s.Failures = 1
	bs := breakers(t, srv, n, s)
	if err := call(bs[0], errBoom); err != nil {
		t.Fatalf("Allow() = %v, want nil", err)
	}
	checkStates(t, bs, gobreaker.StateOpen)
	openTimeoutPassed(t, srv)
	checkStates(t, bs, gobreaker.StateHalfOpen)
	return bs
}

// A half-open breaker lets HalfOpenRequests probes through in the whole
// fleet, as a Router's own breaker does in its process: the other
// replicas' requests, and the probing replica's next ones, get
// gobreaker.ErrTooManyRequests until the probes' outcomes are known.
func TestBreakerHalfOpenProbesShared(t *testing.T) {
	srv := startRedis(t)
	bs := halfOpen(t, srv, 3, tokenpace.BreakerSettings{HalfOpenRequests: 2})
	var probes []func(error)
	for i, b := range []*fleet.Breaker{bs[0], bs[1]} {
		done, err := b.Allow()
		if err != nil {
			t.Fatalf("probe %d: Allow() = %v, want nil", i+1, err)
		}
		probes = append(probes, done)
	}
	for i, b := range bs {
		if _, err := b.Allow(); !errors.Is(err, gobreaker.ErrTooManyRequests) {
			t.Fatalf("replica %d: Allow() with the fleet's 2 probes in flight = %v, want ErrTooManyRequests", i, err)
		}
	}
	probes[0](nil)
	checkStates(t, bs, gobreaker.StateHalfOpen)
	if _, err := bs[2].Allow(); !errors.Is(err, gobreaker.ErrTooManyRequests) {
		t.Fatalf("Allow() after 1 of 2 probes succeeded = %v, want ErrTooManyRequests", err)
	}
	probes[1](nil)
	checkStates(t, bs, gobreaker.StateClosed)
	for i, b := range bs {
		if err := call(b, nil); err != nil {
			t.Fatalf("replica %d: Allow() once the probes closed the breaker = %v, want nil", i, err)
		}
	}
}

// A probe whose outcome the breaker leaves out (the caller gave up)
// gives its place back: the next request, in any replica, is the probe.
func TestBreakerHalfOpenExcludedProbeGivesPlaceBack(t *testing.T) {
	srv := startRedis(t)
	bs := halfOpen(t, srv, 2, tokenpace.BreakerSettings{})
	done, err := bs[0].Allow()
	if err != nil {
		t.Fatalf("probe: Allow() = %v, want nil", err)
	}
	if _, err := bs[1].Allow(); !errors.Is(err, gobreaker.ErrTooManyRequests) {
		t.Fatalf("Allow() with the probe in flight = %v, want ErrTooManyRequests", err)
	}
	done(context.Canceled)
	checkStates(t, bs, gobreaker.StateHalfOpen)
	if err := call(bs[1], nil); err != nil {
		t.Fatalf("Allow() after the probe was cancelled = %v, want nil", err)
	}
	checkStates(t, bs, gobreaker.StateClosed)
}

// A probe never heard of (its replica ended mid-request) holds its place
// for the breaker's Timeout, not for good; a late outcome of it still
// counts.
func TestBreakerHalfOpenLostProbe(t *testing.T) {
	srv := startRedis(t)
	bs := halfOpen(t, srv, 2, tokenpace.BreakerSettings{})
	lost, err := bs[0].Allow()
	if err != nil {
		t.Fatalf("probe: Allow() = %v, want nil", err)
	}
	if _, err := bs[1].Allow(); !errors.Is(err, gobreaker.ErrTooManyRequests) {
		t.Fatalf("Allow() with the probe in flight = %v, want ErrTooManyRequests", err)
	}
	openTimeoutPassed(t, srv) // the half-open state's wait for its probe
	checkStates(t, bs, gobreaker.StateHalfOpen)
	next, err := bs[1].Allow()
	if err != nil {
		t.Fatalf("Allow() once the probe was not heard of within Timeout = %v, want nil", err)
	}
	lost(errBoom) // late, and in the same half-open state: it reopens
	checkStates(t, bs, gobreaker.StateOpen)
	next(nil)
	checkStates(t, bs, gobreaker.StateOpen)
}

// What a Router's caller sees: while one replica's probe of a half-open
// route is under way, another replica's call skips the route (as a
// Router's own breaker would in one process) rather than sending it to
// the server still failing, and is answered by the next route.
func TestRoutersShareHalfOpenProbe(t *testing.T) {
	srv := startRedis(t)
	be := newBackend(t)
	bs := halfOpen(t, srv, 2, tokenpace.BreakerSettings{})
	held := &heldTransport{next: be, reached: make(chan struct{}), release: make(chan struct{})}
	release := sync.OnceFunc(func() { close(held.release) })
	t.Cleanup(release) // a test that fails first still ends the probe
	r1 := be.replicaVia(t, tokenpace.Policy{}, bs[0], nil, held)
	r2 := be.replica(t, tokenpace.Policy{}, bs[1], nil)
	be.failing.Store(true)

	probe := make(chan *tokenpace.Timing)
	go func() { probe <- routedQuietly(r1) }()
	<-held.reached
	sent := be.sent.Load()
	tm := routed(t, r2, 5)
	checkAttempts(t, tm, "a:skipped", "b:won")
	if !errors.Is(tm.Attempts[0].Err, tokenpace.ErrCircuitOpen) {
		t.Fatalf("skipped attempt's Err = %v, want ErrCircuitOpen", tm.Attempts[0].Err)
	}
	if n := be.sent.Load() - sent; n != 0 {
		t.Fatalf("requests sent to a half-open a with the fleet's probe under way = %d, want 0", n)
	}
	release()
	checkAttempts(t, <-probe, "a:failed", "b:won")
	checkStates(t, bs, gobreaker.StateOpen)
}

// heldTransport holds each request, telling reached, until release is
// closed, then sends it through next.
type heldTransport struct {
	next             http.RoundTripper
	reached, release chan struct{}
}

func (h *heldTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	h.reached <- struct{}{}
	<-h.release
	return h.next.RoundTrip(req)
}

// routedQuietly is routed for a goroutine other than the test's: it
// reads the call to its end and returns its Timing, its error in
// Timing.Attempts.
func routedQuietly(r *tokenpace.Router) *tokenpace.Timing {
	s := r.NewStreaming(context.Background(), openai.ChatCompletionNewParams{
		Model:     "m",
		Messages:  []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Tell me about latency.")},
		MaxTokens: openai.Int(5),
	})
	for s.Next() {
	}
	return s.Timing()
}

// A half-open state written by a replica of an earlier release (a fleet
// upgraded one replica at a time, or a state written before the upgrade)
// has no expiry (e 0), and that release neither writes nor resets p: it
// keeps the places taken in an earlier half-open state. Such a state is
// read as one with every place free, waiting Timeout for its probes, not
// as one refusing every request for good.
func TestBreakerHalfOpenWrittenByEarlierRelease(t *testing.T) {
	srv := startRedis(t)
	bs := halfOpen(t, srv, 2, tokenpace.BreakerSettings{})
	if _, err := bs[0].Allow(); err != nil { // its place taken: p 1
		t.Fatalf("probe: Allow() = %v, want nil", err)
	}
	// An earlier release's replica reopens the breaker and, its open
	// state over, makes it half-open again: s, g, e and the counts
	// written, p left as it was.
	ctx, rdb := context.Background(), srv.client(t)
	key := "tokenpace:breaker:{route-a}"
	g, err := rdb.HGet(ctx, key, "g").Int64()
	if err != nil {
		t.Fatalf("HGET g: %v", err)
	}
	if err := rdb.HSet(ctx, key, "s", 1, "g", g+2, "e", 0, "r", 0, "ts", 0, "tf", 0, "cs", 0, "cf", 0).Err(); err != nil {
		t.Fatalf("HSET: %v", err)
	}
	probe, err := bs[1].Allow()
	if err != nil {
		t.Fatalf("Allow() in a half-open state an earlier release wrote, no probe under way = %v, want nil", err)
	}
	if _, err := bs[0].Allow(); !errors.Is(err, gobreaker.ErrTooManyRequests) {
		t.Fatalf("Allow() with that state's probe in flight = %v, want ErrTooManyRequests", err)
	}
	openTimeoutPassed(t, srv) // its probe not heard of within Timeout
	checkStates(t, bs, gobreaker.StateHalfOpen)
	next, err := bs[0].Allow()
	if err != nil {
		t.Fatalf("Allow() once that state's probe was not heard of within Timeout = %v, want nil", err)
	}
	probe(nil)
	checkStates(t, bs, gobreaker.StateClosed)
	next(nil)
	checkStates(t, bs, gobreaker.StateClosed)
}

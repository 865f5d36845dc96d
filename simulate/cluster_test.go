package simulate_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
)

func newCluster(t *testing.T, n int, r simulate.Routing) *simulate.Cluster {
	t.Helper()
	c, err := simulate.Replicated(simulate.Deployment{}, n, r)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Alternating long and short requests: round-robin sends every long one to
// replica 0, least-outstanding spreads the work.
func TestLeastOutstandingBalances(t *testing.T) {
	var w []simulate.Arrival
	for i := range 40 {
		out := 10
		if i%2 == 0 {
			out = 2000
		}
		w = append(w, simulate.Arrival{At: time.Duration(i) * 100 * time.Millisecond, Request: simulate.Request{ID: uint64(i), PromptTokens: 100, OutputTokens: out}})
	}
	for _, tc := range []struct {
		routing        simulate.Routing
		minRatio, maxR float64 // generated tokens, replica 1 / replica 0
	}{
		{simulate.RoundRobin, 0, 0.01},
		{simulate.LeastOutstanding, 0.8, 1.25},
	} {
		c := newCluster(t, 2, tc.routing)
		res := simulate.Run(c, w)
		for _, r := range res {
			if !r.Done {
				t.Fatalf("%v: request %d not done", tc.routing, r.ID)
			}
		}
		g0, g1 := c.Replicas()[0].Stats().GeneratedTotal, c.Replicas()[1].Stats().GeneratedTotal
		ratio := float64(g1) / float64(g0)
		if ratio < tc.minRatio || ratio > tc.maxR {
			t.Errorf("%v: tokens on replica 1 / replica 0 = %d/%d = %.3f, want in [%g, %g]", tc.routing, g1, g0, ratio, tc.minRatio, tc.maxR)
		}
		if got := c.Outstanding(); got[0] != 0 || got[1] != 0 {
			t.Errorf("%v: Outstanding() after the run = %v, want [0 0]", tc.routing, got)
		}
	}
}

// Requests carry one of 7 shared 1024-token prefixes, far enough apart
// that each prefill ends before the next arrives. Round-robin over 4
// replicas misses each prefix once per replica (28 misses); affinity
// misses each once (7).
func TestAffinityRaisesPrefixHits(t *testing.T) {
	const n, keys, replicas, prefix = 400, 7, 4, 1024
	var w []simulate.Arrival
	for i := range n {
		w = append(w, simulate.Arrival{At: time.Duration(i) * 200 * time.Millisecond, Request: simulate.Request{
			ID: uint64(i), PromptTokens: prefix + 100, OutputTokens: 8,
			PrefixKey: fmt.Sprint("system-", i%keys), PrefixTokens: prefix,
		}})
	}
	for _, tc := range []struct {
		routing simulate.Routing
		misses  int
	}{
		{simulate.RoundRobin, keys * replicas},
		{simulate.PrefixAffinity, keys},
	} {
		c := newCluster(t, replicas, tc.routing)
		res := simulate.Run(c, w)
		var cached int
		for _, r := range res {
			cached += r.CachedTokens
		}
		if want := (n - tc.misses) * prefix; cached != want {
			t.Errorf("%v: cached prompt tokens = %d, want %d (%d misses of %d)", tc.routing, cached, want, tc.misses, n)
		}
		if got := c.Stats().PrefixHits; got != int64(cached) {
			t.Errorf("%v: Stats().PrefixHits = %d, want the results' %d", tc.routing, got, cached)
		}
	}
}

func TestClusterOfOneMatchesEngine(t *testing.T) {
	w := simulate.Poisson(200, 20, 1, simulate.Request{PromptTokens: 500, OutputTokens: 64})
	e, err := simulate.NewEngine(simulate.Deployment{})
	if err != nil {
		t.Fatal(err)
	}
	want := simulate.Run(e, w)
	got := simulate.Run(newCluster(t, 1, simulate.LeastOutstanding), w)
	for i := range want {
		if got[i].E2E != want[i].E2E || got[i].TTFT != want[i].TTFT {
			t.Fatalf("request %d: cluster of one TTFT/E2E = %v/%v, want the engine's %v/%v", i, got[i].TTFT, got[i].E2E, want[i].TTFT, want[i].E2E)
		}
	}
}

func TestClusterCancel(t *testing.T) {
	c := newCluster(t, 2, simulate.RoundRobin)
	c.Add(0, &simulate.Request{ID: 1, PromptTokens: 10, OutputTokens: 100})
	c.Add(0, &simulate.Request{ID: 2, PromptTokens: 10, OutputTokens: 100})
	c.Cancel(0, 1)
	c.Cancel(0, 99) // unknown: ignored
	if got := c.Outstanding(); got[0] != 0 || got[1] != 1 {
		t.Fatalf("Outstanding() after cancelling request 1 = %v, want [0 1]", got)
	}
	var ids []uint64
	for {
		at, ok := c.Next()
		if !ok {
			break
		}
		c.AdvanceTo(at, func(em simulate.Emission) { ids = append(ids, em.ID) })
	}
	for _, id := range ids {
		if id != 2 {
			t.Fatalf("emission for request %d after it was cancelled", id)
		}
	}
	if len(ids) != 100 {
		t.Errorf("request 2 emissions = %d, want 100", len(ids))
	}
}

func TestNewClusterErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  func() error
	}{
		{"no replicas", func() error { _, err := simulate.NewCluster(simulate.RoundRobin); return err }},
		{"zero replicas", func() error { _, err := simulate.Replicated(simulate.Deployment{}, 0, simulate.RoundRobin); return err }},
		{"bad routing", func() error { _, err := simulate.Replicated(simulate.Deployment{}, 2, simulate.Routing(9)); return err }},
		{"bad deployment", func() error {
			_, err := simulate.Replicated(simulate.Deployment{MaxRunning: -1}, 2, simulate.RoundRobin)
			return err
		}},
	} {
		if err := tc.err(); !errors.Is(err, simulate.ErrInvalid) {
			t.Errorf("%s: error = %v, want ErrInvalid", tc.name, err)
		}
	}
	if _, err := simulate.ParseRouting("random"); !errors.Is(err, simulate.ErrUnknownName) {
		t.Errorf("ParseRouting(random) error = %v, want ErrUnknownName", err)
	}
	for _, r := range simulate.Routings() {
		if got, err := simulate.ParseRouting(r.String()); got != r || err != nil {
			t.Errorf("ParseRouting(%q) = %v, %v; want %v", r, got, err, r)
		}
	}
}

// The affinity router's memory of prefixes is bounded: 300,000 distinct
// prefixes (one conversation each) do not grow it without limit.
func TestAffinityMemoryIsBounded(t *testing.T) {
	c := newCluster(t, 2, simulate.PrefixAffinity)
	for i := range 300_000 {
		r := &simulate.Request{ID: uint64(i), PromptTokens: 10, OutputTokens: 1, PrefixKey: fmt.Sprint("conversation-", i), PrefixTokens: 8}
		c.Add(0, r)
		c.Cancel(0, r.ID)
	}
	if n := simulate.AffinityPrefixes(c); n > 2<<16 {
		t.Errorf("prefixes remembered after 300,000 distinct ones = %d, want at most %d", n, 2<<16)
	}
}

// TestPrefixAffinityBalanceThresholds checks when PrefixAffinity gives up
// a prefix's replica for the least-loaded one: when it holds more than
// AffinityAbsSlack requests above the least-loaded replica's and more than
// AffinityRelSlack times its load, as SGLang's cache-aware router decides.
func TestPrefixAffinityBalanceThresholds(t *testing.T) {
	c := newCluster(t, 2, simulate.PrefixAffinity)
	add := func(id uint64, prefix string) {
		c.Add(0, &simulate.Request{ID: id, PromptTokens: 64, PrefixKey: prefix, PrefixTokens: 32, OutputTokens: 100})
	}
	id := uint64(0)
	steps := []struct {
		n      int    // requests of prefix "p" added
		prefix string // their prefix
		want   []int  // Outstanding after them
	}{
		// Replica 0 serves "p" first and keeps it up to 64 requests above
		// replica 1's 0; the 66th goes to the least-loaded replica 1.
		{65, "p", []int{65, 0}},
		{1, "p", []int{65, 1}},
		// 65 against 1: 64 above it, not more: "p" stays.
		{1, "p", []int{66, 1}},
		// 66 against 1: 65 above it and over 1.5 times: replica 1.
		{1, "p", []int{66, 2}},
		// A request without a prefix goes to the least-loaded replica.
		{1, "", []int{66, 3}},
	}
	for _, s := range steps {
		for range s.n {
			id++
			add(id, s.prefix)
		}
		if got := c.Outstanding(); fmt.Sprint(got) != fmt.Sprint(s.want) {
			t.Fatalf("after request %d (prefix %q): Outstanding() = %v, want %v", id, s.prefix, got, s.want)
		}
	}
}

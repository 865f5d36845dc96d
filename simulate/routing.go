package simulate

import (
	"fmt"
	"strings"
)

// Routing is how a Cluster's router picks a replica for each request.
type Routing int

const (
	// RoundRobin sends request i to replica i mod N, whatever their load.
	RoundRobin Routing = iota
	// LeastOutstanding sends each request to the replica holding the fewest
	// requests (queued or running); ties go to the lowest replica index.
	LeastOutstanding
	// PrefixAffinity sends requests that share a Request.PrefixKey to the
	// replica that served the prefix first, and a request whose
	// Request.NextPrefixKey an earlier one had (the same prompt again) to
	// the replica that served that one last, so its prefix cache serves
	// them, unless that replica is overloaded: it holds (queued or
	// running) more than AffinityAbsSlack requests beyond the least-loaded
	// replica's, and more than AffinityRelSlack times as many; the request
	// then goes to the least-loaded replica instead (the balance
	// thresholds of SGLang's cache-aware router). A new prefix, or none,
	// goes to the least-loaded replica.
	PrefixAffinity
)

// Balance thresholds of PrefixAffinity, the defaults of the SGLang model
// gateway's cache-aware policy (--balance-abs-threshold 64,
// --balance-rel-threshold 1.5; lightseekorg/smg docs, load-balancing.md).
const (
	AffinityAbsSlack = 64
	AffinityRelSlack = 1.5
)

// Routings lists every routing, in declaration order.
func Routings() []Routing { return []Routing{RoundRobin, LeastOutstanding, PrefixAffinity} }

// String returns the routing's flag name: "round-robin",
// "least-outstanding" or "affinity".
func (r Routing) String() string {
	switch r {
	case RoundRobin:
		return "round-robin"
	case LeastOutstanding:
		return "least-outstanding"
	case PrefixAffinity:
		return "affinity"
	}
	return fmt.Sprintf("Routing(%d)", int(r))
}

// ParseRouting reads a routing's flag name (see String); "rr",
// "least-loaded", "lor" and "prefix-affinity" are accepted too. An unknown
// name yields an *UnknownNameError.
func ParseRouting(name string) (Routing, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "round-robin", "roundrobin", "rr":
		return RoundRobin, nil
	case "least-outstanding", "least-outstanding-requests", "least-loaded", "lor":
		return LeastOutstanding, nil
	case "affinity", "prefix-affinity", "prefix", "cache-aware":
		return PrefixAffinity, nil
	}
	return 0, &UnknownNameError{Kind: "routing", Name: name, Known: []string{"round-robin", "least-outstanding", "affinity"}}
}

// router picks a replica for a request given each replica's outstanding
// requests. It may remember what it picked.
type router interface {
	pick(r *Request, load []int) int
}

func newRouter(r Routing, n int) (router, error) {
	switch r {
	case RoundRobin:
		return &roundRobin{n: n}, nil
	case LeastOutstanding:
		return leastOutstanding{}, nil
	case PrefixAffinity:
		return &affinity{home: make(map[string]int)}, nil
	}
	return nil, &InvalidError{Field: "routing", Value: int(r), Reason: "unknown"}
}

type roundRobin struct{ n, next int }

func (rr *roundRobin) pick(*Request, []int) int {
	i := rr.next
	rr.next = (rr.next + 1) % rr.n
	return i
}

type leastOutstanding struct{}

func (leastOutstanding) pick(_ *Request, load []int) int { return leastLoaded(load) }

func leastLoaded(load []int) int {
	best := 0
	for i, l := range load {
		if l < load[best] {
			best = i
		}
	}
	return best
}

// affinityMemory bounds the prefixes the affinity router remembers: a
// server that runs for days sees a new prefix with every conversation.
const affinityMemory = 1 << 16

// affinity remembers the replica each prefix went to first: the recent
// prefixes in home, the ones before in old. When home is full it becomes
// old and the older ones are forgotten, so at most 2 × affinityMemory
// prefixes are held; a prefix seen again moves back into home.
type affinity struct{ home, old map[string]int }

func (a *affinity) remember(key string, i int) {
	if len(a.home) >= affinityMemory {
		a.old, a.home = a.home, make(map[string]int)
	}
	a.home[key] = i
}

func (a *affinity) pick(r *Request, load []int) int {
	i := a.choose(r, load)
	if r.NextPrefixKey != "" {
		a.remember(r.NextPrefixKey, i) // the next turn finds its history there
	}
	return i
}

// homeOf returns the replica key went to, if remembered; a key found
// among the old ones moves back into home.
func (a *affinity) homeOf(key string) (int, bool) {
	if key == "" {
		return 0, false
	}
	if h, ok := a.home[key]; ok {
		return h, true
	}
	h, ok := a.old[key]
	if ok {
		delete(a.old, key)
		a.remember(key, h)
	}
	return h, ok
}

// choose picks r's replica: its prefix's home unless that replica is too
// busy, else the least loaded (which becomes the home of a new prefix).
func (a *affinity) choose(r *Request, load []int) int {
	least := leastLoaded(load)
	h, ok := a.homeOf(r.NextPrefixKey) // the same prompt, sent before
	if !ok {
		if r.PrefixKey == "" {
			return least
		}
		if h, ok = a.homeOf(r.PrefixKey); !ok {
			a.remember(r.PrefixKey, least)
			return least
		}
	}
	if load[h]-load[least] > AffinityAbsSlack && float64(load[h]) > AffinityRelSlack*float64(load[least]) {
		return least
	}
	return h
}

package simulate

import (
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// Arrival is one request of a workload and when it arrives.
type Arrival struct {
	// At is the arrival time since the start of the run.
	At time.Duration
	// Request is the request; its ID must be unique in the workload.
	Request Request
}

// Result is the timeline of one request of an offline run. Times are since
// the start of the run unless named as a span.
type Result struct {
	// ID is the Request.ID.
	ID uint64
	// Arrival is when the request arrived.
	Arrival time.Duration
	// Queue is the wait for a slot before prefill began.
	Queue time.Duration
	// Prefill is from the start of prefill to the first token.
	Prefill time.Duration
	// TTFT is from arrival to the first token: Queue + Prefill.
	TTFT time.Duration
	// E2E is from arrival to the last token.
	E2E time.Duration
	// CachedTokens is how many prompt tokens the prefix cache served.
	CachedTokens int
	// OutputTokens is how many tokens the request produced.
	OutputTokens int
	// Chunks holds the time of every emission (one or more tokens each,
	// see Tokens), since the start of the run. Chunks[0] is the first
	// token.
	Chunks []time.Duration
	// Tokens holds how many tokens each emission carried; nil when every
	// emission carried one.
	Tokens []int
	// Done is false when the run ended before the request finished (it
	// never fit).
	Done bool
}

// TPOT is the mean time per output token after the first:
// (E2E − TTFT) / (OutputTokens − 1); zero for a single token.
func (r Result) TPOT() time.Duration {
	if r.OutputTokens < 2 {
		return 0
	}
	return (r.E2E - r.TTFT) / time.Duration(r.OutputTokens-1)
}

// ITL returns the gaps between consecutive emissions.
func (r Result) ITL() []time.Duration {
	if len(r.Chunks) < 2 {
		return nil
	}
	out := make([]time.Duration, len(r.Chunks)-1)
	for i := range out {
		out[i] = r.Chunks[i+1] - r.Chunks[i]
	}
	return out
}

// Run drives s through workload in virtual time and returns one Result per
// arrival, in workload order. It starts no goroutine and never sleeps: a
// workload of thousands of requests runs in milliseconds. s must be fresh:
// Run hands it the requests with their workload index as ID and reports
// them under their own Request.ID.
func Run(s Scheduler, workload []Arrival) []Result {
	results := make([]Result, len(workload))
	for i, a := range workload {
		results[i] = Result{ID: a.Request.ID, Arrival: a.At, Chunks: make([]time.Duration, 0, max(a.Request.OutputTokens, 1))}
	}
	drive(s, workload, func(i int, em Emission) {
		r := &results[i]
		if em.First {
			r.Queue, r.Prefill, r.CachedTokens = em.Queue, em.Prefill, em.CachedTokens
			r.TTFT = em.At - r.Arrival
		}
		if em.Tokens != 1 && r.Tokens == nil {
			r.Tokens = make([]int, len(r.Chunks), cap(r.Chunks))
			for j := range r.Tokens {
				r.Tokens[j] = 1
			}
		}
		r.Chunks = append(r.Chunks, em.At)
		if r.Tokens != nil {
			r.Tokens = append(r.Tokens, em.Tokens)
		}
		r.OutputTokens += em.Tokens
		r.E2E = em.At - r.Arrival
		r.Done = em.Done
	})
	return results
}

// drive feeds workload to s in arrival order, advancing s between arrivals,
// until s has nothing left to do. emit receives each emission with the
// workload index of its request; s sees those indices as request IDs.
func drive(s Scheduler, workload []Arrival, emit func(i int, em Emission)) {
	order := make([]int, len(workload))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmpDur(workload[a].At, workload[b].At) })
	fn := func(em Emission) {
		if em.ID < uint64(len(workload)) {
			emit(int(em.ID), em)
		}
	}
	next := 0
	for {
		at, ok := s.Next()
		if next < len(order) && (!ok || workload[order[next]].At <= at) {
			a := &workload[order[next]]
			s.AdvanceTo(a.At, fn)
			req := a.Request
			req.ID = uint64(order[next])
			s.Add(a.At, &req)
			next++
			continue
		}
		if !ok {
			return
		}
		s.AdvanceTo(at, fn)
	}
}

func cmpDur(a, b time.Duration) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Identical is a workload of n copies of r arriving together at time 0,
// with IDs 1..n.
func Identical(n int, r Request) []Arrival {
	out := make([]Arrival, n)
	for i := range out {
		out[i] = Arrival{Request: r}
		out[i].Request.ID = uint64(i + 1)
	}
	return out
}

// Poisson is a workload of n copies of r arriving as a Poisson process of
// ratePerSecond requests per second, with IDs 1..n. The same seed gives the
// same arrival times.
func Poisson(n int, ratePerSecond float64, seed uint64, r Request) []Arrival {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	out := make([]Arrival, n)
	var t float64
	for i := range out {
		if ratePerSecond > 0 {
			t += rng.ExpFloat64() / ratePerSecond
		}
		out[i] = Arrival{At: time.Duration(math.Round(t * 1e9)), Request: r}
		out[i].Request.ID = uint64(i + 1)
	}
	return out
}

package main

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/metrics"
	"github.com/tokenpace/tokenpace/simulate/trace"
)

// lateAfter is how far past its scheduled time a request must go out to
// count as late in the report.
const lateAfter = time.Millisecond

// loadGen sends a benchmark's requests and records their timings.
//
// With a schedule, request i is due at schedule[i] from the start (a
// trace, or gamma arrivals); otherwise, with rate > 0, requests arrive as a
// Poisson process; either way at most concurrency
// in flight (0: no cap). A request that cannot go out at its scheduled time
// (no free slot, a slow wake-up) goes out late: the client's own delay,
// which the run reports apart (lateness), while the latency figures count
// from when each request was sent, as the server saw it.
// With rate 0, concurrency clients each send their next request when the
// previous one ends (a closed loop).
type loadGen struct {
	client      *tokenpace.Client
	params      func(i int) openai.ChatCompletionNewParams
	recorder    *metrics.Recorder
	requests    int
	concurrency int
	rate        float64
	schedule    []time.Duration // when each request is due; nil: Poisson at rate
	warmup      int
	timeout     time.Duration
	seed        uint64
	promptSeed  uint64 // of the prompts (see benchFlags.promptSeed)
	keep        bool   // keep every Timing, for the plot
	progress    progress
	// trace is the replayed trace (nil for synthetic load) and load
	// describes the load for the report ("" for the plain ones).
	trace *trace.Trace
	load  string
	// sess runs multi-turn sessions when on; model, prompt and
	// maxTokens shape their turns; slo is the recorder's.
	sess      sessionFlags
	model     string
	prompt    int
	maxTokens int
	slo       metrics.SLO
	// warm makes warm-up request i: prompts of their own, which no
	// measured request sends again (a server would serve it from its
	// prompt cache). Nil: params.
	warm func(i int) openai.ChatCompletionNewParams
}

// loadResult is what a run measured beyond the Recorder's figures.
type loadResult struct {
	snap metrics.Snapshot
	// wall is the measured phase's wall time, first send to last end.
	wall time.Duration
	// late counts requests sent more than lateAfter past their scheduled
	// time; maxLate is the largest such delay; lateness holds every
	// request's delay, and capped those of the late requests that waited
	// for a free slot under the concurrency cap.
	late     int
	maxLate  time.Duration
	lateness []time.Duration
	capped   int
	// rate is the rate of a rate search's step; 0 otherwise.
	rate float64
	// interrupted is set when ctx ended before every request did;
	// abandoned counts the requests cut off then, which are not in snap.
	interrupted bool
	abandoned   int
	// uncounted counts the completed requests whose server reported no
	// usage: their output tokens are their chunks (see Timing).
	uncounted int
	// timings holds every recorded Timing when keep was set, and rows
	// describes each of them (see --export).
	timings []*tokenpace.Timing
	rows    []requestRow
	// turnTTFT holds the TTFT of sessions' first turns [0] and later
	// turns [1], which carry the conversation so far.
	turnTTFT [2][]time.Duration
	// firstErr is the first measured request's error, nil if none failed:
	// what the server said, for a run in which no request completed.
	firstErr error
}

// run performs the warm-up, then the measured requests, and returns the
// result. It returns early, with what was measured, when ctx ends.
func (g *loadGen) run(ctx context.Context) *loadResult {
	res := &loadResult{}
	var mu sync.Mutex
	if g.warmup > 0 {
		w := *g
		if g.warm != nil {
			w.params = g.warm
		}
		w.closedLoop(ctx, g.warmup, func(int, *tokenpace.Timing, time.Time, time.Time) {})
	}
	start := time.Now()
	var last time.Time
	record := func(i int, t *tokenpace.Timing, scheduled, slotted time.Time) {
		if ctx.Err() != nil && t.Err != nil {
			// Cut off by the interruption: not the server's failure.
			mu.Lock()
			res.abandoned++
			mu.Unlock()
			return
		}
		c := *t
		if !scheduled.IsZero() && !c.Sent.IsZero() {
			late := max(c.Sent.Sub(scheduled), 0)
			mu.Lock()
			res.lateness = append(res.lateness, late)
			if late > lateAfter {
				res.late++
				if !slotted.IsZero() && slotted.Sub(scheduled) > late/2 {
					res.capped++
				}
			}
			res.maxLate = max(res.maxLate, late)
			mu.Unlock()
		}
		g.recorder.Record(context.Background(), &c)
		mu.Lock()
		if c.Err == nil && !c.UsageReported && c.OutputChunks > 0 {
			res.uncounted++
		}
		if c.Err != nil && res.firstErr == nil {
			res.firstErr = c.Err
		}
		if g.sess.on() && c.Err == nil && len(c.Chunks) > 0 {
			later := min(i%g.sess.turns, 1)
			res.turnTTFT[later] = append(res.turnTTFT[later], c.TTFT())
		}
		if g.keep {
			res.timings = append(res.timings, &c)
			res.rows = append(res.rows, newRequestRow(i, &c, scheduled))
		}
		if c.End.After(last) {
			last = c.End
		}
		mu.Unlock()
		g.progress.add()
	}
	if ctx.Err() == nil {
		switch {
		case g.sess.on():
			g.sessionLoop(ctx, record)
		case g.rate > 0 || g.schedule != nil:
			g.openLoop(ctx, record)
		default:
			g.closedLoop(ctx, g.requests, record)
		}
	}
	res.interrupted = ctx.Err() != nil
	if last.After(start) {
		res.wall = last.Sub(start)
	}
	res.snap = g.recorder.Snapshot()
	return res
}

// maxWarmupClients bounds the clients of a warm-up whose run has no cap
// in flight (an uncapped --rate run): a client and a stream each, all of
// --warmup at once took gigabytes and minutes to stop.
const maxWarmupClients = 64

// closedLoop sends n requests from g.concurrency clients (up to
// maxWarmupClients when the concurrency has no cap, as for the warm-up of
// an uncapped --rate run).
func (g *loadGen) closedLoop(ctx context.Context, n int, record func(int, *tokenpace.Timing, time.Time, time.Time)) {
	clients := min(n, maxWarmupClients)
	if g.concurrency > 0 {
		clients = min(g.concurrency, n)
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			for i := range next {
				record(i, g.one(ctx, i), time.Time{}, time.Time{})
			}
		})
	}
send:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break send
		}
	}
	close(next)
	wg.Wait()
}

// openLoop sends g.requests requests on g.schedule, or at Poisson arrival
// times.
func (g *loadGen) openLoop(ctx context.Context, record func(int, *tokenpace.Timing, time.Time, time.Time)) {
	rng := rand.New(rand.NewPCG(g.seed, 0x9e3779b97f4a7c15))
	var slots chan struct{}
	if g.concurrency > 0 {
		slots = make(chan struct{}, g.concurrency)
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	timer := time.NewTimer(0)
	defer timer.Stop()
	start := time.Now()
	at := start
	for i := range g.requests {
		switch {
		case g.schedule != nil:
			at = start.Add(g.schedule[i])
		case i > 0:
			at = at.Add(time.Duration(rng.ExpFloat64() / g.rate * float64(time.Second)))
		}
		timer.Reset(time.Until(at))
		select {
		case <-timer.C:
		case <-ctx.Done():
			return
		}
		if slots != nil {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
		}
		scheduled := at
		var slotted time.Time // when a slot under the cap was free
		if slots != nil {
			slotted = time.Now()
		}
		wg.Go(func() {
			record(i, g.one(ctx, i), scheduled, slotted)
			if slots != nil {
				<-slots
			}
		})
	}
}

// one sends request i, reads its whole stream and returns its Timing.
func (g *loadGen) one(ctx context.Context, i int) *tokenpace.Timing {
	t, _ := g.stream(ctx, g.params(i))
	return t
}

// stream sends p, reads its whole stream and returns its Timing and the
// reply's text.
func (g *loadGen) stream(ctx context.Context, p openai.ChatCompletionNewParams) (*tokenpace.Timing, string) {
	ctx, cancel := context.WithTimeout(ctx, g.timeout)
	defer cancel()
	s := g.client.NewStreaming(ctx, p)
	for s.Next() {
	}
	s.Close()
	reply := ""
	if acc := s.Accumulated(); len(acc.Choices) > 0 {
		reply = acc.Choices[0].Message.Content
	}
	return s.Timing(), reply
}

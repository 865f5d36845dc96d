package main

import (
	"context"
	"fmt"
	"io"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace/metrics"
)

// runRateSearch runs --find-max-rate against tgt: one Poisson load per
// step of at least --step-requests requests lasting at least
// --step-duration, no cap in flight, each step on a fresh recorder, and reports the curve walked with the figures of the
// step at the highest rate that met the SLO. It returns the exit code.
func runRateSearch(ctx context.Context, f *benchFlags, tgt *benchTarget, base *loadGen, stdout, stderr io.Writer) int {
	start := f.rate
	if start == 0 {
		start = 1
	}
	var last *loadResult
	met := map[float64]*loadResult{} // the last step that met the SLO at each rate
	step := 0
	measure := func(rate float64) (rateStep, bool) {
		n := f.search.stepRequests(rate)
		var bar progress = noProgress{}
		if f.progress && isTerminal(stderr) {
			bar = newProgressBar(n, stderr)
		}
		st, res := base.step(ctx, rate, n, f.seed+uint64(step), step == 0, f.search.target, bar)
		step++
		last = res
		if res.interrupted {
			return rateStep{}, false
		}
		if st.Meets {
			met[rate] = res
		}
		return st, true
	}
	s := searchRate(measure, start, f.search.precision, f.search.target, f.search.steps)
	res := met[s.MaxRate] // a pooled step that met has one of its two that did
	if res == nil {
		res = last
	}
	if res == nil {
		return benchFail(stderr, 130, "interrupted before the first step ended")
	}
	res.interrupted = ctx.Err() != nil
	f.rate, f.requests, f.concurrency = res.rate, f.search.stepRequests(res.rate), 0
	rep := newBenchReport(f, tgt, base, res)
	rep.search = s
	rep.load = fmt.Sprintf("rate search in steps of Poisson requests, each at least %d and %v long; the figures below are the step at %.4g req/s",
		f.search.requests, f.search.duration, res.rate)
	return f.finish(rep, tgt, stdout, stderr)
}

// step measures one step of a rate search: n Poisson requests at rate,
// no cap in flight, on a fresh recorder (base's warm-up only when warm),
// judged against the attainment target.
func (base *loadGen) step(ctx context.Context, rate float64, n int, seed uint64, warm bool, target float64, bar progress) (rateStep, *loadResult) {
	g := *base
	g.rate, g.requests, g.concurrency, g.schedule, g.seed, g.progress = rate, n, 0, nil, seed, bar
	if !warm {
		g.warmup = 0
	}
	g.recorder = metrics.NewRecorder(metrics.WithSLO(g.slo))
	if g.trace == nil && !g.sess.on() {
		// Prompts of the step's own: the steps before it left theirs in
		// the server's prompt cache.
		params, from := base.params, int(seed-base.seed)<<20 // a million requests a step apart
		g.params = func(i int) openai.ChatCompletionNewParams { return params(from + i) }
	}
	res := g.run(ctx)
	bar.finish()
	res.rate = rate
	return newRateStep(rate, res.snap, target), res
}

package main

import (
	"fmt"
	"math/rand/v2"

	"github.com/tokenpace/tokenpace/metrics"
	"github.com/tokenpace/tokenpace/simulate"
)

// newLoad builds the load the flags describe (a closed loop, Poisson or
// gamma arrivals, a trace, or sessions), without its endpoint yet.
func (f *benchFlags) newLoad() (*loadGen, error) {
	g := &loadGen{
		requests: f.requests, concurrency: f.concurrency, rate: f.rate, warmup: f.warmup,
		timeout: f.timeout, seed: f.seed, sess: f.sess, progress: noProgress{},
	}
	switch {
	case f.traceFile != "":
		tr, err := f.tf.open(f.traceFile)
		if err != nil {
			return nil, fmt.Errorf("--trace: %w", err)
		}
		g.trace, g.schedule, g.requests = tr, schedule(tr.Arrivals()), len(tr.Requests)
		g.load = f.tf.describe(tr)
	case f.burstiness > 0:
		a, err := simulate.Workload{Rate: f.rate, Process: simulate.GammaProcess, Burstiness: f.burstiness, Requests: f.requests, Seed: f.seed}.Arrivals()
		if err != nil {
			return nil, err
		}
		g.schedule = schedule(a)
		g.load = fmt.Sprintf("%s, gamma arrivals at %g/s with burstiness (CV) %g, %s, max_tokens %d", count(f.requests, "request"), f.rate, f.burstiness, count(f.prompt, "prompt token"), f.maxTokens)
	case f.sess.on():
		g.requests = f.sess.sessions * f.sess.turns
		g.load = f.sess.describe(f.prompt, f.maxTokens)
	}
	f.requests = g.requests // the report's planned_requests
	return g, nil
}

// target points g at the endpoint: its client, its model's prompts, and a
// recorder judging the flags' SLO.
func (g *loadGen) target(t *benchTarget, f *benchFlags) {
	g.client = t.client
	g.promptSeed = f.promptSeed()
	g.params = newPromptMaker(t.model, f.prompt, f.maxTokens, g.promptSeed)
	// The warm-up's prompts (of --prompt-tokens, for a trace too) come
	// from a seed of their own: no measured request repeats one.
	g.warm = newPromptMaker(t.model, f.prompt, f.maxTokens, ^g.promptSeed)
	if g.trace != nil {
		g.params = newTracePrompts(t.model, g.trace, g.promptSeed).params
	}
	g.model, g.maxTokens, g.prompt = t.model, f.maxTokens, f.prompt
	g.slo = metrics.SLO{TTFT: f.sloTTFT, TPOT: f.sloTPOT}
	g.recorder = metrics.NewRecorder(metrics.WithSLO(g.slo))
	g.keep = f.plot != "" || f.export != "" || f.report != ""
}

// promptSeed returns the seed of the prompts: --seed's, or, against a
// server of --base-url without --seed, one of this run's own. A server
// keeps what it served in its prompt cache (llama.cpp's in host memory,
// vLLM's and SGLang's automatic prefix caches), and a second run that sent
// the first one's prompts again would measure cache hits, not prefills.
func (f *benchFlags) promptSeed() uint64 {
	if f.baseURL == "" || f.hw.set()["seed"] {
		return f.seed
	}
	return rand.Uint64() >> 11 // exact as a JSON number (prompt_seed)
}

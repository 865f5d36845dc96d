package simulate

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/tokenpace/tokenpace/simulate/internal/sigfig"
)

// Scenario is the load Predict simulates: Concurrency identical requests
// arriving together, or Concurrency clients in a closed loop sending
// Requests in all, each client its next request the moment its previous
// one ends (what tokenpace bench does without --rate).
type Scenario struct {
	// PromptTokens is each request's prompt length; zero means 1000.
	PromptTokens int
	// CachedTokens is how many leading prompt tokens are already in the
	// prefix cache (rounded down to a KV block, at most PromptTokens − 1);
	// zero means none.
	CachedTokens int
	// OutputTokens is each request's output length; zero means 256.
	OutputTokens int
	// Concurrency is how many requests run at once; zero means 1.
	Concurrency int
	// Requests is how many requests the Concurrency clients send in all;
	// zero (or at most Concurrency) means one wave of Concurrency requests.
	Requests int
	// Spread starts the clients one after another at random times (a
	// fixed seed) spread uniformly over one loaded request's time, instead
	// of all at once: the steady state of a long closed loop, where
	// requests of equal length do not stay in step because real servers
	// and clients jitter, and the jitter leaves the clients' phases random
	// rather than evenly spaced (some requests arrive while another
	// prefills and queue behind it). The zero value starts them together,
	// the worst case for the first token.
	Spread bool
	// FirstWaveTogether, with Spread and more Requests than Concurrency,
	// counts the run's first wave as sent: all Concurrency requests at
	// once at the start (what vllm bench serve does behind its
	// --max-concurrency limit at an infinite request rate, and every
	// request it sends is measured), the rest at the steady state's random
	// phases. The per-request figures weigh that burst's requests in.
	FirstWaveTogether bool
}

// Prediction is Predict's breakdown. Per-request figures are means over the
// scenario's requests, taken from an offline run of the engine,
// so they agree with what the simulator serves.
type Prediction struct {
	// Deployment is the deployment with its defaults filled in.
	Deployment Deployment
	// Scenario is the scenario with its defaults filled in.
	Scenario Scenario
	// Queue is the mean wait for a slot (or for a prefill chunk).
	Queue time.Duration
	// Prefill is the mean time from prefill start to first token.
	Prefill time.Duration
	// TTFT is the mean time to first token, Queue + Prefill.
	TTFT time.Duration
	// ITL is the mean gap between emissions after the first.
	ITL time.Duration
	// TPOT is the mean time per output token after the first.
	TPOT time.Duration
	// E2E is the mean time from arrival to the last token.
	E2E time.Duration
	// TPS is one stream's decode rate, 1 / TPOT; zero for one output token.
	TPS float64
	// AggregateTPS is all output tokens over the run's length: the time
	// the last request finished, or, with Scenario.Spread, the longest
	// time one client was busy (from its first request's arrival to its
	// last one's end), as in the real run whose clients all start at once
	// and whose spread phases come from jitter, not from a late start.
	AggregateTPS float64
	// Bound says whether the steady decode step is memory- or
	// compute-bound.
	Bound Bound
	// DecodeStep prices one decode step at the scenario's concurrency
	// halfway through the output.
	DecodeStep StepCost
	// Arithmetic explains the figures, one line each, e.g.
	// "35 GB / 1000 GB/s = 35 ms per token ≈ 28.6 TPS at full bandwidth".
	Arithmetic []string
}

// maxPredictTokens bounds the output tokens one Predict simulates (a few
// seconds of CPU).
const maxPredictTokens = 1e8

// Predict simulates s on d offline and explains the result. An impossible
// deployment or scenario yields an *InvalidError.
func Predict(d Deployment, s Scenario) (Prediction, error) {
	d, err := d.Resolved()
	if err != nil {
		return Prediction{}, err
	}
	if s, err = s.resolved(d); err != nil {
		return Prediction{}, err
	}
	if !s.Spread || s.Concurrency == 1 {
		p, _, err := predictSpaced(d, s, 0, 0)
		return p, err
	}
	// The steady state spaces the clients by the loaded E2E over the
	// concurrency: find it by a run spaced by one request's time alone.
	one := s
	one.Concurrency, one.Requests, one.Spread = 1, 0, false
	alone, _, err := predictSpaced(d, one, 0, 0)
	if err != nil {
		return Prediction{}, err
	}
	gap := alone.E2E / time.Duration(s.Concurrency)
	if s.Requests > s.Concurrency {
		first, _, err := predictSpaced(d, s, gap, 1)
		if err != nil {
			return Prediction{}, err
		}
		gap = first.E2E / time.Duration(s.Concurrency)
	}
	// The clients' phases are random: the figures are the mean over
	// spreadDraws draws of them, as a run long enough to see many
	// arrangements would measure.
	var p Prediction
	var e *Engine
	var tps, agg float64
	for seed := uint64(1); seed <= spreadDraws; seed++ {
		q, qe, err := predictSpaced(d, s, gap, seed)
		if err != nil {
			return Prediction{}, err
		}
		if seed == 1 {
			p, e = q, qe
			p.Queue, p.Prefill, p.TTFT, p.ITL, p.TPOT, p.E2E = 0, 0, 0, 0, 0, 0
		}
		p.Queue += q.Queue / spreadDraws
		p.Prefill += q.Prefill / spreadDraws
		p.TTFT += q.TTFT / spreadDraws
		p.ITL += q.ITL / spreadDraws
		p.TPOT += q.TPOT / spreadDraws
		p.E2E += q.E2E / spreadDraws
		agg += q.AggregateTPS / spreadDraws
	}
	if s.FirstWaveTogether && s.Requests > s.Concurrency {
		late, err := p.weighFirstWave(d, s)
		if err != nil {
			return Prediction{}, err
		}
		// The burst holds each client back by its first request's
		// extra wait, and the run by as much.
		if tokens := float64(s.Requests) * float64(s.OutputTokens); agg > 0 {
			agg = tokens / (tokens/agg + late.Seconds())
		}
	}
	if p.TPOT > 0 {
		tps = 1 / p.TPOT.Seconds()
	}
	p.TPS, p.AggregateTPS = tps, agg
	p.Arithmetic = p.explain(e)
	return p, nil
}

// weighFirstWave replaces the share of p's per-request means that the
// first wave of the checked, spread scenario s holds (Concurrency of its
// Requests) with the figures of that wave sent together on d: the burst a
// closed loop starts with when its clients all begin at once. It returns
// how much later, on the mean, the burst gives a client its first token.
func (p *Prediction) weighFirstWave(d Deployment, s Scenario) (late time.Duration, err error) {
	wave := s
	wave.Requests, wave.Spread, wave.FirstWaveTogether = 0, false, false
	w, _, err := predictSpaced(d, wave, 0, 0)
	if err != nil {
		return 0, err
	}
	late = max(w.TTFT-p.TTFT, 0)
	c, n := time.Duration(s.Concurrency), time.Duration(s.Requests)
	for _, f := range []struct{ got, wave *time.Duration }{
		{&p.Queue, &w.Queue}, {&p.Prefill, &w.Prefill}, {&p.TTFT, &w.TTFT},
		{&p.ITL, &w.ITL}, {&p.TPOT, &w.TPOT}, {&p.E2E, &w.E2E},
	} {
		*f.got += (*f.wave - *f.got) * c / n
	}
	return late, nil
}

// resolved returns s with its defaults filled in (1,000 prompt tokens,
// 256 output tokens, one client), or an *InvalidError when a figure is
// out of range, the prompt is over d's context, or there is more work
// than Predict simulates.
func (s Scenario) resolved(d Deployment) (Scenario, error) {
	s.PromptTokens = orI(s.PromptTokens, 1000)
	s.OutputTokens = orI(s.OutputTokens, 256)
	s.Concurrency = orI(s.Concurrency, 1)
	for _, c := range []struct {
		name string
		v    int
		ok   bool
	}{
		{"prompt tokens", s.PromptTokens, s.PromptTokens > 0},
		{"output tokens", s.OutputTokens, s.OutputTokens > 0},
		{"concurrency", s.Concurrency, s.Concurrency > 0},
		{"cached tokens", s.CachedTokens, s.CachedTokens >= 0 && (s.CachedTokens == 0 || s.CachedTokens < s.PromptTokens)},
		{"requests", s.Requests, s.Requests >= 0},
	} {
		if !c.ok {
			return Scenario{}, &InvalidError{Field: c.name, Value: c.v, Reason: "must be positive (cached tokens: in [0, prompt tokens))"}
		}
	}
	if ctx := d.Model.Context; ctx > 0 && s.PromptTokens > ctx {
		// A server answers such a request 400 (see generation.go): no
		// figure to predict. (A prompt that fills the context, and the
		// token after it, is what published prefill measurements run.)
		return Scenario{}, &InvalidError{Field: "prompt tokens", Value: s.PromptTokens,
			Reason: fmt.Sprintf("over %s's context of %d tokens", d.Model.Name, ctx)}
	}
	total := max(s.Requests, s.Concurrency)
	if work := float64(total) * float64(s.OutputTokens); work > maxPredictTokens {
		return Scenario{}, &InvalidError{Field: "scenario", Value: fmt.Sprintf("%d × %d output tokens", total, s.OutputTokens),
			Reason: fmt.Sprintf("more than %g tokens to simulate", float64(maxPredictTokens))}
	}
	return s, nil
}

// spreadDraws is how many random arrangements of the clients' phases a
// spread Predict averages.
const spreadDraws = 8

// predictSpaced is Predict of the checked scenario s on the resolved
// deployment d, with the clients started over clients·gap at random
// phases drawn from seed (see closedLoop), and the engine it ran.
func predictSpaced(d Deployment, s Scenario, gap time.Duration, seed uint64) (Prediction, *Engine, error) {
	e, err := NewEngine(d)
	if err != nil {
		return Prediction{}, nil, err
	}
	d = e.Deployment()
	total := max(s.Requests, s.Concurrency)
	const key = "predict"
	req := Request{PromptTokens: s.PromptTokens, OutputTokens: s.OutputTokens}
	if s.CachedTokens > 0 {
		e.WarmPrefix(key, s.CachedTokens)
		req.PrefixKey, req.PrefixTokens = key, s.CachedTokens
	}
	// Sum the figures as the run goes rather than keep every chunk time:
	// a large scenario would otherwise hold millions of them.
	type summary struct {
		client      int
		arrived     time.Duration
		first, last time.Duration
		chunks      int
		tokens      int
	}
	sums := make([]summary, total)
	p := Prediction{Deployment: d, Scenario: s}
	closedLoop(e, s.Concurrency, total, gap, seed, req, func(i, client int, at time.Duration) { sums[i].arrived, sums[i].client = at, client }, func(i int, em Emission) {
		r := &sums[i]
		if em.First {
			p.Queue += em.Queue
			p.Prefill += em.Prefill
			r.first = em.At
		}
		r.last = em.At
		r.chunks++
		r.tokens += em.Tokens
	})
	var tokens int
	var itlSum time.Duration
	var itlN int
	spans := newClientSpans(min(s.Concurrency, total))
	for _, r := range sums {
		spans.add(r.client, r.arrived, r.last)
		p.TTFT += r.first - r.arrived
		p.E2E += r.last - r.arrived
		if r.tokens > 1 {
			p.TPOT += (r.last - r.first) / time.Duration(r.tokens-1)
		}
		tokens += r.tokens
		if r.chunks > 1 {
			itlSum += r.last - r.first
			itlN += r.chunks - 1
		}
	}
	n := time.Duration(len(sums))
	p.Queue, p.Prefill, p.TTFT, p.TPOT, p.E2E = p.Queue/n, p.Prefill/n, p.TTFT/n, p.TPOT/n, p.E2E/n
	if itlN > 0 {
		p.ITL = itlSum / time.Duration(itlN)
	}
	if p.TPOT > 0 {
		p.TPS = 1 / p.TPOT.Seconds()
	}
	if wall := spans.longest(); wall > 0 {
		p.AggregateTPS = float64(tokens) / wall.Seconds()
	}

	batch := min(s.Concurrency, d.MaxRunning)
	perSeq := 1 + d.Speculation.DraftTokens
	p.DecodeStep = e.cost.step(Load{
		DecodeSeqs:    batch,
		DecodeTokens:  batch * perSeq,
		DecodeContext: int64(batch) * int64(s.PromptTokens+s.OutputTokens/2),
	})
	p.Bound = p.DecodeStep.Bound
	p.Arithmetic = p.explain(e)
	return p, e, nil
}

// clientSpans is each client's busy span in a closed loop: the first
// arrival and the last end of its requests.
type clientSpans [][2]time.Duration

func newClientSpans(clients int) clientSpans {
	c := make(clientSpans, clients)
	for i := range c {
		c[i][0] = -1
	}
	return c
}

// add counts a request of client that arrived at arrived and ended at end.
func (c clientSpans) add(client int, arrived, end time.Duration) {
	sp := &c[client]
	if sp[0] < 0 || arrived < sp[0] {
		sp[0] = arrived
	}
	sp[1] = max(sp[1], end)
}

// longest is the longest time one client was busy.
func (c clientSpans) longest() time.Duration {
	var wall time.Duration
	for _, sp := range c {
		wall = max(wall, sp[1]-sp[0])
	}
	return wall
}

// closedLoop sends total copies of req from clients clients, each sending
// its next the moment its previous one ends, and drives e until all are
// done. With gap > 0 the clients after the first start at random times
// (drawn from seed) spread uniformly over clients·gap, the phases of a long
// run whose clients and server jitter; otherwise all start at once.
// arrived receives each request's index, the index of the client that
// sent it (0 to clients−1) and its arrival time, emit each emission with
// its request's index.
func closedLoop(e *Engine, clients, total int, gap time.Duration, seed uint64, req Request, arrived func(i, client int, at time.Duration), emit func(i int, em Emission)) {
	next := 0
	owner := make([]int, total) // the client that sent each request
	add := func(client int, at time.Duration) {
		r := req
		r.ID = uint64(next)
		owner[next] = client
		arrived(next, client, at)
		e.Add(at, &r)
		next++
	}
	// begun counts the clients started; the rest start at starts[begun].
	begun, clients := 0, min(clients, total)
	starts := make([]time.Duration, clients)
	if gap > 0 {
		rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
		for i := 1; i < clients; i++ {
			starts[i] = time.Duration(rng.Int64N(int64(gap) * int64(clients)))
		}
		slices.Sort(starts)
	}
	for begun < clients && (gap == 0 || begun == 0) {
		add(begun, 0)
		begun++
	}
	var ended []Emission
	for {
		at, ok := e.Next()
		if begun < clients {
			// A client yet to start whose time comes before the step ends.
			if start := starts[begun]; !ok || start < at {
				e.AdvanceTo(start, func(em Emission) {
					if em.ID < uint64(total) {
						emit(int(em.ID), em)
					}
				})
				add(begun, start)
				begun++
				continue
			}
		}
		if !ok {
			return
		}
		ended = ended[:0]
		e.AdvanceTo(at, func(em Emission) {
			if em.ID < uint64(total) {
				emit(int(em.ID), em)
			}
			if em.Done {
				ended = append(ended, em)
			}
		})
		for _, em := range ended {
			if next < total {
				add(owner[em.ID], em.At)
			}
		}
	}
}

func (p Prediction) explain(e *Engine) []string {
	d, s, c := p.Deployment, p.Scenario, p.DecodeStep
	gpus := ""
	switch {
	case d.GPUs > 1 && d.parallel() == 1:
		gpus = fmt.Sprintf(" split by layers over %d GPUs (a token visits them in turn)", d.GPUs)
	case d.GPUs > 1:
		gpus = fmt.Sprintf(" over %d GPUs (tensor parallel)", d.GPUs)
	}
	bw := fmt.Sprintf("%s GB/s", sigfig.Num(d.GPU.BandwidthGBs))
	rate := fmt.Sprintf("%s TFLOPS", sigfig.Num(d.GPU.TFLOPS(d.Precision.Compute)))
	if n := d.parallel(); n > 1 {
		bw = fmt.Sprintf("(%d × %s)", n, bw)
		rate = fmt.Sprintf("%d × %s", n, rate)
	}
	batch := min(s.Concurrency, d.MaxRunning)
	draft := ""
	if m := 1 + float64(d.Speculation.DraftTokens)*d.Speculation.DraftCost; m != 1 {
		draft = " × " + sigfig.Num(m) + " (drafting)"
	}
	roof := func(k float64) string {
		if k > 0 {
			return "roofline_k=" + sigfig.Num(k)
		}
		return "max"
	}
	bytes := c.WeightBytes + c.KVBytes
	raw := bytes / (float64(d.parallel()) * d.GPU.BandwidthGBs * 1e9)
	rawW := c.WeightBytes / (float64(d.parallel()) * d.GPU.BandwidthGBs * 1e9)
	lines := []string{
		fmt.Sprintf("model: %s, %s B params at %s (%s bits/weight) = %s GB of weights%s on %s",
			d.Model.Name, sigfig.Num(d.Model.ParamsB), d.Precision.Name, sigfig.Num(d.Precision.BitsPerWeight), sigfig.Num(d.Model.WeightBytes(d.Precision)/1e9), gpus, d.GPU.Name),
		fmt.Sprintf("KV cache: %s KB per token%s, room for %d tokens", sigfig.Num(d.Model.KVBytesPerToken(d.KVBits)/1e3), kvCopies(d), d.KVCapacityTokens),
		fmt.Sprintf("decode memory: %s GB / %s = %s ms per token ≈ %s TPS at full bandwidth (weights read per step), + %s GB KV for %s = %s ms",
			sigfig.Num(c.WeightBytes/1e9), bw, sigfig.Num(rawW*1e3), sigfig.Num(1/rawW), sigfig.Num(c.KVBytes/1e9), streams(batch), sigfig.Num(raw*1e3)),
		fmt.Sprintf("  at MBU %s: %s ms", sigfig.Num(d.MBU), sigfig.Ms(c.Memory)),
		fmt.Sprintf("decode compute: %s GFLOP / (%s × MFU %s) = %s ms", sigfig.Num(c.FLOPs/1e9), rate, sigfig.Num(d.MFU), sigfig.Ms(c.Compute)),
		fmt.Sprintf("decode step: %s(%s, %s)%s%s + %s ms overhead = %s ms → %s-bound, ≈ %s TPS per stream, %s TPS for %s",
			roof(d.Ridge), sigfig.Ms(c.Memory), sigfig.Ms(c.Compute), dequantNote(c, e.cost.fused), draft, sigfig.Ms(c.Overhead), sigfig.Ms(c.Time), c.Bound, sigfig.Num(d.Speculation.TokensPerStep()/c.Time.Seconds()),
			sigfig.Num(float64(batch)*d.Speculation.TokensPerStep()/c.Time.Seconds()), streams(batch)),
	}
	if d.Speculation.DraftTokens > 0 {
		lines = append(lines, fmt.Sprintf("speculative decoding: k=%d, α=%s → %s tokens per verify step",
			d.Speculation.DraftTokens, sigfig.Num(d.Speculation.Acceptance), sigfig.Num(d.Speculation.TokensPerStep())))
	}
	uncached := s.PromptTokens - min(s.CachedTokens/d.BlockSize*d.BlockSize, s.PromptTokens-1)
	if s.CachedTokens == 0 {
		uncached = s.PromptTokens
	}
	pf := e.cost.step(Load{PrefillTokens: uncached, PrefillPairs: prefillPairs(uncached, s.PromptTokens-uncached), PrefillContext: int64(s.PromptTokens - uncached)})
	lines = append(lines,
		fmt.Sprintf("prefill alone: %d uncached tokens → %s TFLOP / (%s × MFU %s) = %s ms compute, %s ms memory; %s(%s, %s) + %s ms overhead = %s ms → %s-bound",
			uncached, sigfig.Num(pf.FLOPs/1e12), rate, sigfig.Num(d.MFU), sigfig.Ms(pf.Compute), sigfig.Ms(pf.Memory),
			roof(d.PrefillRidge), sigfig.Ms(pf.Memory), sigfig.Ms(pf.Compute), sigfig.Ms(pf.Overhead), sigfig.Ms(pf.Time), pf.Bound))
	if e.cost.arPerToken > 0 {
		allReduces := func(tokens int) time.Duration { // a step's, latency and bytes
			return time.Duration(2*d.Model.Layers)*d.AllReduce + seconds(e.cost.arPerToken*float64(tokens))
		}
		lines = append(lines, fmt.Sprintf("all-reduce: 2 per layer, %s µs each, and the activations at %s of %s GB/s per GPU: %s ms a decode step of 1 token, %s ms for the prefill of %d tokens",
			sigfig.Num(float64(d.AllReduce)/1e3), sigfig.Num(orF(d.AllReduceShare, 1)), sigfig.Num(d.GPU.peerLinkGBs()),
			sigfig.Ms(allReduces(1)), sigfig.Ms(allReduces(uncached)), uncached))
	}
	lines = append(lines,
		fmt.Sprintf("simulated %d × (%d prompt, %d output tokens): queue %s ms, prefill %s ms, TTFT %s ms, ITL %s ms, TPOT %s ms, E2E %s ms, %s TPS per stream, %s TPS aggregate",
			s.Concurrency, s.PromptTokens, s.OutputTokens, sigfig.Ms(p.Queue), sigfig.Ms(p.Prefill), sigfig.Ms(p.TTFT), sigfig.Ms(p.ITL), sigfig.Ms(p.TPOT), sigfig.Ms(p.E2E), sigfig.Num(p.TPS), sigfig.Num(p.AggregateTPS)),
	)
	return lines
}

// dequantNote says how the dequantization of a weight-only format entered
// the step: hidden behind the memory read, or inside the compute path.
func dequantNote(c StepCost, fused bool) string {
	switch {
	case c.Dequant == 0:
		return ""
	case fused:
		return fmt.Sprintf(" ‖ %s ms dequantization (fused, overlaps the memory read)", sigfig.Ms(c.Dequant))
	}
	return fmt.Sprintf(" (compute includes %s ms dequantization on the same units)", sigfig.Ms(c.Dequant))
}

// streams says n streams in words: "1 stream", "4 streams".
func streams(n int) string {
	if n == 1 {
		return "1 stream"
	}
	return fmt.Sprintf("%d streams", n)
}

// kvCopies says, when d's GPUs outnumber its model's KV heads, how much a
// token's KV cache takes over the GPUs, each KV head held on several;
// empty otherwise.
func kvCopies(d Deployment) string {
	r := d.kvReplicas()
	if r == 1 {
		return ""
	}
	return fmt.Sprintf(" (%s KB held: each of its %d KV heads on %d GPUs)", sigfig.Num(d.KVBytesHeldPerToken()/1e3), d.Model.kvHeads(), r)
}

package plan

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
	"github.com/tokenpace/tokenpace/simulate/internal/sigfig"
)

// Space is the set of deployments Search looks through: every GPU × tensor
// parallel degree × precision × max batch × routing, each with 1 up to
// MaxGPUs / TP replicas. Every field's zero value means a default.
type Space struct {
	// GPUs to consider; nil means every catalog GPU that has a price.
	GPUs []simulate.GPU
	// TP is the tensor-parallel degrees (GPUs per replica); nil means
	// 1, 2, 4 and 8.
	TP []int
	// Precisions of the weights; nil means bf16, fp8 and int4.
	Precisions []simulate.Precision
	// MaxBatch is the most sequences a replica batches (vLLM's
	// max_num_seqs); nil means 16, 32, 64, 128 and 256.
	MaxBatch []int
	// Routings; nil means least-outstanding, plus affinity when the
	// workload shares prefixes.
	Routings []simulate.Routing
	// MaxGPUs bounds the GPUs of a deployment, all replicas together;
	// zero means 64.
	MaxGPUs int
}

// Input is what Search needs: the model, the load, the objective and
// where to look.
type Input struct {
	// Template holds the deployment fields the search does not vary
	// (model, runtime, KV bits, chunked-prefill size, KV policy, ...);
	// its GPU, GPUs, Precision and MaxRunning are overwritten.
	Template simulate.Deployment
	// Workload is the load every candidate serves. For a batch job it is
	// a sample of the job's requests, all arriving at time 0.
	Workload []simulate.Arrival
	// BatchRequests is, for a batch job, how many requests the whole job
	// holds; zero means the workload is an online load.
	BatchRequests int
	// SLO is the objective. A batch job needs SLO.Deadline and is judged
	// on throughput only.
	SLO SLO
	// Space is where to look.
	Space Space
	// Prices is USD per GPU-hour by GPU name; nil means DefaultPrices. A
	// GPU without a price is left out.
	Prices Prices
	// Samples holds further independent draws of the same online load
	// (the same rate and lengths, other arrival seeds). Near capacity the
	// tail latency of one draw is a random variable: a candidate meets
	// the SLO only if it meets it on Workload and on every sample, and
	// reports its worst figures. Nil means Workload alone; a batch job
	// ignores it.
	Samples [][]simulate.Arrival
	// Headroom is the spare capacity an online pick must have: every
	// candidate is judged on its arrivals brought closer in time by
	// 1 + Headroom, i.e. at (1 + Headroom) × the offered rate, so the pick
	// still meets the SLO when the load runs that much above plan. Costs
	// per token are of the offered load. Zero means none; it must be in
	// [0, 10]. A batch job ignores it.
	Headroom float64

	judged [][]simulate.Arrival // the loads candidates are judged on; see loads
	ctx    context.Context      // ends the search (SearchContext); nil for none
}

// Outcome is what became of a candidate.
type Outcome int

const (
	// Met: simulated, and it meets the SLO.
	Met Outcome = iota
	// Missed: simulated, and it misses the SLO (see Candidate.Misses).
	Missed
	// Pruned: never simulated, a roofline bound shows it cannot meet the
	// SLO (see Candidate.Reason).
	Pruned
)

// String returns "met", "missed" or "pruned".
func (o Outcome) String() string {
	switch o {
	case Met:
		return "met"
	case Missed:
		return "missed"
	case Pruned:
		return "pruned"
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// Config is one point of the search space.
type Config struct {
	// GPU is the GPU every replica runs on.
	GPU simulate.GPU
	// TP is the GPUs per replica (tensor parallel).
	TP int
	// Replicas is how many replicas serve behind the router.
	Replicas int
	// Precision is the weights' precision.
	Precision simulate.Precision
	// MaxBatch is the most sequences a replica batches.
	MaxBatch int
	// Routing is how the router spreads requests.
	Routing simulate.Routing
}

// String describes c, e.g. "2 × h100-sxm (TP 1) fp8, max batch 64,
// least-outstanding".
func (c Config) String() string {
	return fmt.Sprintf("%d × %s (TP %d) %s, max batch %d, %s", c.Replicas, c.GPU.Name, c.TP, c.Precision.Name, c.MaxBatch, c.Routing)
}

// Candidate is one configuration Search simulated or pruned, with its cost.
type Candidate struct {
	Config
	// Deployment is one replica's deployment, resolved; zero when the
	// weights do not fit.
	Deployment simulate.Deployment
	// GPUsTotal is TP × Replicas.
	GPUsTotal int
	// CostPerHour is GPUsTotal × the GPU's price per hour.
	CostPerHour float64
	// CostPerMillionOutputTokens is CostPerHour over the output tokens
	// the workload asks for in an hour (online), or the cost to finish
	// over the job's output tokens (batch).
	CostPerMillionOutputTokens float64
	// CostToFinish is, for a batch job, CostPerHour × the time to finish
	// it (for a Pruned candidate, a lower bound: the job's tokens at the
	// decode throughput bound; zero when the weights do not fit); zero
	// for an online load.
	CostToFinish float64
	// Outcome says whether the candidate met the SLO, missed it or was
	// pruned.
	Outcome Outcome
	// Measured is the simulated result (Met and Missed only): for an
	// online load, the worst figures of the draws it ran (see
	// Input.Samples). For a batch job Makespan is the estimated time
	// to finish the whole job.
	Measured Measured
	// Misses lists the SLO limits a Missed candidate missed.
	Misses []Miss
	// Reason says why a Pruned candidate cannot meet the SLO.
	Reason string
	// PrunedUpTo is, for a Pruned candidate, the largest replica count
	// the same reason prunes (from 1).
	PrunedUpTo int

	batch bool
}

// Cost is what candidates are ranked by: the cost to finish for a batch
// job (+Inf when unknown: the weights do not fit), the cost per hour
// otherwise.
func (c *Candidate) Cost() float64 {
	if !c.batch {
		return c.CostPerHour
	}
	if c.CostToFinish > 0 {
		return c.CostToFinish
	}
	return math.Inf(1)
}

func (c *Candidate) cost() float64 { return c.Cost() }

// Result is Search's answer.
type Result struct {
	// Best is the cheapest candidate that met the SLO; nil when none did.
	Best *Candidate
	// Candidates holds every simulated candidate and, for each family
	// (GPU, TP, precision, batch, routing) a bound pruned, one entry with
	// a single replica (see Candidate.PrunedUpTo); cheapest first.
	Candidates []Candidate
	// Considered counts configurations in the space (every replica count
	// of every family); Simulated, Pruned and Skipped split them:
	// simulated (for a batch job: judged from its family's simulated
	// sample), ruled out by a roofline bound, or never simulated because
	// they cannot be cheaper than a candidate that met the SLO or because
	// replica bisection settled them (fewer replicas than a failure, more
	// than a success).
	Considered, Simulated, Pruned, Skipped int
	// Runs counts offline simulation runs.
	Runs int
	// Refused says, once for each tensor-parallel degree of the space
	// that a tensor-parallel engine refuses for the model (see
	// simulate.Deployment.CheckTensorParallel), why; those configurations
	// are left out of the space and of Considered.
	Refused []string
}

// CheapestRejected returns the cheapest candidate no dearer than Best that
// missed the SLO or was pruned for a reason other than its weights not
// fitting (so it can be served); nil when there is none.
func (r *Result) CheapestRejected() *Candidate {
	for i := range r.Candidates {
		c := &r.Candidates[i]
		if r.Best != nil && c.cost() > r.Best.cost() {
			break
		}
		if c.Outcome == Missed || (c.Outcome == Pruned && c.Deployment.GPUs > 0) {
			return c
		}
	}
	return nil
}

// shape is what the bounds need to know about a workload.
type shape struct {
	minUncached int   // fewest prompt tokens a prefix cache cannot serve
	minOutput   int   // fewest output tokens
	maxPrompt   int   // most prompt tokens
	tpot        bool  // some request has two or more output tokens
	outTokens   int64 // all output tokens
	uncached    int64 // all prompt tokens a prefix cache cannot serve
	span        time.Duration
	prefixes    bool
}

func shapeOf(w []simulate.Arrival) shape {
	s := shape{minUncached: math.MaxInt, minOutput: math.MaxInt}
	first, last := time.Duration(math.MaxInt64), time.Duration(0)
	for _, a := range w {
		r := a.Request
		p, o := max(r.PromptTokens, 1), max(r.OutputTokens, 1)
		un := p
		if r.PrefixKey != "" {
			s.prefixes = true
			un = max(p-r.PrefixTokens, 1)
		}
		s.minUncached, s.minOutput, s.maxPrompt = min(s.minUncached, un), min(s.minOutput, o), max(s.maxPrompt, p)
		s.tpot = s.tpot || o >= 2
		s.outTokens += int64(o)
		s.uncached += int64(un)
		first, last = min(first, a.At), max(last, a.At)
	}
	s.span = last - first
	return s
}

func (in *Input) defaults() (Space, Prices, error) {
	sp := in.Space
	pr := in.Prices
	if pr == nil {
		pr = DefaultPrices()
	}
	if sp.GPUs == nil {
		for _, g := range simulate.GPUs() {
			if _, ok := pr[g.Name]; ok {
				sp.GPUs = append(sp.GPUs, g)
			}
		}
	}
	if sp.TP == nil {
		sp.TP = []int{1, 2, 4, 8}
	}
	if sp.Precisions == nil {
		sp.Precisions = []simulate.Precision{simulate.BF16, simulate.FP8, simulate.INT4}
	}
	if sp.MaxBatch == nil {
		sp.MaxBatch = []int{16, 32, 64, 128, 256}
	}
	if sp.Routings == nil {
		sp.Routings = []simulate.Routing{simulate.LeastOutstanding}
		if shapeOf(in.Workload).prefixes {
			sp.Routings = append(sp.Routings, simulate.PrefixAffinity)
		}
	}
	sp.MaxGPUs = orI(sp.MaxGPUs, 64)
	switch {
	case len(in.Workload) == 0:
		return sp, pr, &simulate.InvalidError{Field: "workload", Value: 0, Reason: "holds no request"}
	case sp.MaxGPUs < 1:
		return sp, pr, &simulate.InvalidError{Field: "max GPUs", Value: sp.MaxGPUs, Reason: "must be positive"}
	case in.BatchRequests < 0:
		return sp, pr, &simulate.InvalidError{Field: "batch requests", Value: in.BatchRequests, Reason: "must not be negative"}
	case in.BatchRequests > 0 && in.SLO.Deadline <= 0:
		return sp, pr, &simulate.InvalidError{Field: "SLO deadline", Value: in.SLO.Deadline, Reason: "a batch job needs a deadline"}
	case in.BatchRequests == 0 && !in.SLO.latency():
		return sp, pr, &simulate.InvalidError{Field: "SLO", Value: "none", Reason: "set a TTFT, TPOT or E2E limit (or a batch job with a deadline)"}
	}
	if !(in.Headroom >= 0 && in.Headroom <= 10) {
		return sp, pr, &simulate.InvalidError{Field: "headroom", Value: in.Headroom, Reason: "must be in [0, 10]"}
	}
	for i, w := range in.Samples {
		if len(w) == 0 {
			return sp, pr, &simulate.InvalidError{Field: fmt.Sprintf("sample %d", i+1), Value: 0, Reason: "holds no request"}
		}
	}
	for _, tp := range sp.TP {
		if tp < 1 {
			return sp, pr, &simulate.InvalidError{Field: "TP", Value: tp, Reason: "must be positive"}
		}
	}
	for _, b := range sp.MaxBatch {
		if b < 1 {
			return sp, pr, &simulate.InvalidError{Field: "max batch", Value: b, Reason: "must be positive"}
		}
	}
	for _, r := range sp.Routings {
		if err := checkRouting(r); err != nil {
			return sp, pr, err
		}
	}
	return sp, pr, in.SLO.Validate()
}

// family is a configuration without its replica count.
type family struct {
	cfg   Config // Replicas unset
	d     simulate.Deployment
	price float64
	maxR  int
	lo    int     // fewest replicas the capacity bound allows
	peak  float64 // decode throughput bound of one replica, tokens/s
}

// Search looks through in.Space for the cheapest deployment that meets in.SLO on
// in.Workload. It never simulates a configuration a roofline bound rules
// out: weights that do not fit, a decode step (weights over bandwidth) or
// a prefill slower than the SLO allows, or fewer replicas than the decode
// and prefill throughput bounds need for the offered tokens. Of the rest
// it simulates, family by family from the cheapest, only what can still
// beat the best found so far: the fewest replicas the bounds allow, then
// doubling and bisection over the replica count, taking more replicas
// never to make a deployment slower (true of these routers on a fixed
// workload; TestPlanPruningMatchesBruteForce checks the pick against
// simulating everything).
//
// A pick must not depend on the luck of one arrival draw: near capacity a
// queue's p99 swings with the sample. An online candidate is therefore
// judged at in.Headroom above the offered rate and on in.Samples besides
// in.Workload; it meets the SLO only if it meets it on every draw, and it
// reports the worst figures. The bounds stay safe: a candidate they rule
// out on the first draw cannot meet the SLO on all of them.
//
// A batch job is judged on throughput: one
// replica is simulated on the sample and on half of it, and the time to
// finish the whole job is extrapolated along the line through the two.
//
// Invalid input yields an *simulate.InvalidError.
//
// Search is SearchContext with a context that never ends.
func Search(in Input) (*Result, error) { return SearchContext(context.Background(), in) }

// SearchContext is Search, ended when ctx ends: it simulates no candidate
// once ctx is done and returns ctx's error (a search of a large space runs
// for seconds; one candidate at most runs on after ctx ends).
func SearchContext(ctx context.Context, in Input) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	in.ctx = ctx
	sp, prices, err := in.defaults()
	if err != nil {
		return nil, err
	}
	in.judged = in.loads()
	sh := shapeOf(in.judged[0])
	if ctx, m := in.Template.Model.Context, in.Template.Model; ctx > 0 && sh.maxPrompt > ctx {
		// Every server answers such a request 400: no deployment serves it.
		return nil, &simulate.InvalidError{Field: "prompt tokens", Value: sh.maxPrompt,
			Reason: fmt.Sprintf("over %s's context of %d tokens", m.Name, ctx)}
	}
	res := &Result{}
	var live []*family
	for _, g := range sp.GPUs {
		price, ok := prices[g.Name]
		if !ok {
			continue
		}
		for _, tp := range sp.TP {
			if tp > sp.MaxGPUs {
				continue
			}
			for _, p := range sp.Precisions {
				var refused *simulate.InvalidError
				if errors.As(in.deployment(Config{GPU: g, TP: tp, Precision: p}).CheckTensorParallel(), &refused) {
					if why := fmt.Sprintf("TP %d: %s", tp, refused.Reason); !slices.Contains(res.Refused, why) {
						res.Refused = append(res.Refused, why)
					}
					continue
				}
				for _, b := range sp.MaxBatch {
					for _, rt := range sp.Routings {
						f := &family{cfg: Config{GPU: g, TP: tp, Precision: p, MaxBatch: b, Routing: rt}, price: price, maxR: sp.MaxGPUs / tp}
						res.Considered += f.maxR
						if c := in.prune(f, sh); c != nil {
							res.Pruned += c.PrunedUpTo
							res.Candidates = append(res.Candidates, *c)
							if f.lo == 0 {
								continue
							}
						}
						live = append(live, f)
					}
				}
			}
		}
	}
	if res.Considered == 0 && len(res.Refused) > 0 {
		return nil, &simulate.InvalidError{Field: "TP", Value: sp.TP, Reason: "a tensor-parallel engine refuses every degree asked: " + strings.Join(res.Refused, "; ")}
	}
	slices.SortStableFunc(live, func(a, b *family) int { return cmp.Compare(in.familyCost(a, a.lo), in.familyCost(b, b.lo)) })
	var best *Candidate
	for _, f := range live {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if best != nil && in.familyCost(f, f.lo) >= best.cost() {
			res.Skipped += f.maxR - f.lo + 1
			continue
		}
		c := in.searchFamily(f, best, res)
		if c != nil && (best == nil || c.cost() < best.cost()) {
			best = c
		}
	}
	slices.SortStableFunc(res.Candidates, func(a, b Candidate) int {
		return cmp.Or(cmp.Compare(a.cost(), b.cost()), cmp.Compare(a.Outcome, b.Outcome))
	})
	for i := range res.Candidates {
		if c := &res.Candidates[i]; c.Outcome == Met && best != nil && c.Config == best.Config {
			res.Best = c
			break
		}
	}
	return res, nil
}

// prune applies the roofline bounds to f. It returns nil when no replica
// count is pruned; otherwise the pruned entry, and f.lo set to the fewest
// replicas left (0 when none is).
func (in *Input) prune(f *family, sh shape) *Candidate {
	d := in.deployment(f.cfg)
	pruned := func(reason string, upTo int) *Candidate {
		c := &Candidate{Config: f.cfg, Outcome: Pruned, Reason: reason, PrunedUpTo: upTo}
		c.Replicas = 1 // the cheapest of the pruned replica counts
		in.price(c, f.price, nil)
		if in.BatchRequests > 0 && f.peak > 0 {
			c.CostToFinish = in.familyCost(f, upTo)
			c.CostPerMillionOutputTokens = c.CostToFinish / in.batchTokens() * 1e6
		}
		return c
	}
	e, err := simulate.NewEngine(d)
	if err != nil {
		return pruned("does not fit: "+err.Error(), f.maxR)
	}
	f.d = e.Deployment()
	withD := func(c *Candidate) *Candidate { c.Deployment = f.d; return c }
	maxPerStep := float64(1 + f.d.Speculation.DraftTokens)
	decode := e.StepCost(simulate.Load{DecodeSeqs: 1, DecodeTokens: 1 + f.d.Speculation.DraftTokens}).Time
	tpotFloor := time.Duration(float64(decode) / maxPerStep)
	ttftFloor := e.StepCost(simulate.Load{PrefillTokens: sh.minUncached, PrefillPairs: prefillPairs(sh.minUncached, 0)}).Time
	e2eFloor := ttftFloor + time.Duration(sh.minOutput-1)*tpotFloor
	slo := in.SLO
	if in.BatchRequests == 0 {
		if slo.TPOTP99 > 0 && sh.tpot && tpotFloor > slo.TPOTP99 {
			return withD(pruned(fmt.Sprintf("bandwidth: a decode step takes at least %s ms > TPOT p99 %s ms", sigfig.Ms(tpotFloor), sigfig.Ms(slo.TPOTP99)), f.maxR))
		}
		for _, l := range []time.Duration{slo.TTFTP50, slo.TTFTP90, slo.TTFTP99} {
			if l > 0 && ttftFloor > l {
				return withD(pruned(fmt.Sprintf("compute: prefilling %d tokens takes at least %s ms > TTFT limit %s ms", sh.minUncached, sigfig.Ms(ttftFloor), sigfig.Ms(l)), f.maxR))
			}
		}
		if slo.E2EP99 > 0 && e2eFloor > slo.E2EP99 {
			return withD(pruned(fmt.Sprintf("bandwidth: the shortest request takes at least %s ms > E2E p99 %s ms", sigfig.Ms(e2eFloor), sigfig.Ms(slo.E2EP99)), f.maxR))
		}
	}
	// Decode throughput bound: a step of B sequences yields at most B·(k+1)
	// tokens and takes at least its cost with no KV to read.
	b := f.cfg.MaxBatch
	peak := float64(b) * maxPerStep / e.StepCost(simulate.Load{DecodeSeqs: b, DecodeTokens: b * (1 + f.d.Speculation.DraftTokens)}).Time.Seconds()
	f.peak = peak
	// Prefill throughput bound: a step of T prompt tokens takes at least
	// its cost without attention.
	t := f.d.MaxBatchedTokens
	prefillPeak := float64(t) / e.StepCost(simulate.Load{PrefillTokens: t}).Time.Seconds()
	need := 1
	var why string
	if in.BatchRequests > 0 {
		scale := float64(in.BatchRequests) / float64(len(in.Workload)) / slo.Deadline.Seconds()
		out, pre := in.batchTokens(), float64(sh.uncached)*float64(in.BatchRequests)/float64(len(in.Workload))
		need = int(math.Ceil(max(float64(sh.outTokens)*scale/peak, float64(sh.uncached)*scale/prefillPeak)))
		why = fmt.Sprintf("throughput: a replica decodes at most %s tokens/s and prefills at most %s; %s output and %s prompt tokens by the deadline need ≥ %d replicas",
			sigfig.Num(peak), sigfig.Num(prefillPeak), sigfig.Num(out), sigfig.Num(pre), need)
	} else if sh.span > 0 {
		demand, preDemand := float64(sh.outTokens)/sh.span.Seconds(), float64(sh.uncached)/sh.span.Seconds()
		need = int(math.Ceil(max(demand/peak, preDemand/prefillPeak)))
		why = fmt.Sprintf("throughput: a replica decodes at most %s tokens/s and prefills at most %s; %s output and %s prompt tokens/s offered need ≥ %d replicas",
			sigfig.Num(peak), sigfig.Num(prefillPeak), sigfig.Num(demand), sigfig.Num(preDemand), need)
	}
	need = max(need, 1)
	if need > f.maxR {
		return withD(pruned(why, f.maxR))
	}
	f.lo = need
	if need > 1 {
		return withD(pruned(why, need-1))
	}
	return nil
}

// deployment is one replica of cfg: the template with cfg's GPU, TP,
// precision and max batch, and a chunked-prefill budget that holds the
// batch.
func (in *Input) deployment(cfg Config) simulate.Deployment {
	d := in.Template
	d.GPU, d.GPUs, d.Precision, d.MaxRunning = cfg.GPU, cfg.TP, cfg.Precision, cfg.MaxBatch
	d.MaxBatchedTokens = max(orI(d.MaxBatchedTokens, 8192), cfg.MaxBatch*(1+d.Speculation.DraftTokens))
	return d
}

// Evaluate simulates cfg (with cfg.Replicas replicas) on in.Workload and
// judges it against in.SLO, pruning nothing: what Search would find if it
// simulated cfg. Weights that do not fit yield a Pruned candidate.
func (in *Input) Evaluate(cfg Config) Candidate {
	_, prices, _ := in.defaults()
	in2 := *in
	in2.judged = in.loads()
	in = &in2
	d, err := in.deployment(cfg).Resolved()
	if err != nil {
		why := "does not fit: "
		if in.deployment(cfg).CheckTensorParallel() != nil {
			why = "refused by the engine: "
		}
		c := Candidate{Config: cfg, Outcome: Pruned, Reason: why + err.Error(), PrunedUpTo: cfg.Replicas}
		in.price(&c, prices[cfg.GPU.Name], nil)
		return c
	}
	if in.BatchRequests > 0 {
		f := &family{cfg: cfg, d: d, price: prices[cfg.GPU.Name], lo: cfg.Replicas, maxR: cfg.Replicas}
		var res Result
		if c := in.searchBatch(f, nil, &res); c != nil {
			return *c
		}
		return res.Candidates[len(res.Candidates)-1]
	}
	c, _ := in.simulate(cfg, cfg.Replicas, d, prices[cfg.GPU.Name])
	return c
}

// loads returns the arrivals an online candidate is judged on: Workload
// and every sample, brought closer in time by 1 + Headroom. A batch job
// is judged on Workload alone.
func (in *Input) loads() [][]simulate.Arrival {
	if in.judged != nil {
		return in.judged
	}
	if in.BatchRequests > 0 {
		return [][]simulate.Arrival{in.Workload}
	}
	out := make([][]simulate.Arrival, 0, 1+len(in.Samples))
	for _, w := range append([][]simulate.Arrival{in.Workload}, in.Samples...) {
		if in.Headroom > 0 {
			w = compress(w, 1+in.Headroom)
		}
		out = append(out, w)
	}
	return out
}

// compress returns w with its arrival times divided by k: the same
// requests offered k times as fast.
func compress(w []simulate.Arrival, k float64) []simulate.Arrival {
	out := make([]simulate.Arrival, len(w))
	for i, a := range w {
		a.At = time.Duration(math.Round(float64(a.At) / k))
		out[i] = a
	}
	return out
}

// familyCost is a lower bound of f's cost with r replicas, before
// simulation: the cost per hour online; for a batch job, the cost of
// generating the job's output tokens at the decode throughput bound, which
// no replica count beats.
func (in *Input) familyCost(f *family, r int) float64 {
	if in.BatchRequests > 0 {
		return float64(f.cfg.TP) * f.price * in.batchTokens() / f.peak / 3600
	}
	return float64(r*f.cfg.TP) * f.price
}

// batchTokens is the output tokens of the whole batch job, estimated from
// the sample.
func (in *Input) batchTokens() float64 {
	return float64(shapeOf(in.Workload).outTokens) / float64(len(in.Workload)) * float64(in.BatchRequests)
}

// price fills in c's costs from its GPU's price and, if simulated, its
// measurement.
func (in *Input) price(c *Candidate, usd float64, m *Measured) {
	c.GPUsTotal = c.TP * c.Replicas
	c.CostPerHour = float64(c.GPUsTotal) * usd
	c.batch = in.BatchRequests > 0
	sh := shapeOf(in.Workload)
	switch {
	case in.BatchRequests > 0 && m != nil:
		c.CostToFinish = c.CostPerHour * m.Makespan.Hours()
		c.CostPerMillionOutputTokens = c.CostToFinish / in.batchTokens() * 1e6
	case in.BatchRequests == 0 && sh.span > 0:
		c.CostPerMillionOutputTokens = c.CostPerHour / (float64(sh.outTokens) / sh.span.Hours()) * 1e6
	}
}

// searchFamily finds f's fewest replicas that meet the SLO, simulating
// only replica counts cheaper than best, by bisection. It records every
// simulation in res and returns the candidate that met the SLO, if any.
func (in *Input) searchFamily(f *family, best *Candidate, res *Result) *Candidate {
	if in.BatchRequests > 0 {
		return in.searchBatch(f, best, res)
	}
	hi := f.maxR
	for best != nil && hi >= f.lo && in.familyCost(f, hi) >= best.cost() {
		hi--
	}
	tried := 0
	var met *Candidate
	runs := 0
	try := func(r int) bool {
		if in.ended() {
			return false // SearchContext returns ctx's error
		}
		tried++
		c, n := in.simulate(f.cfg, r, f.d, f.price)
		runs += n
		res.Candidates = append(res.Candidates, c)
		if c.Outcome == Met {
			met = &c
			return true
		}
		return false
	}
	defer func() { res.Simulated += tried; res.Runs += runs; res.Skipped += f.maxR - f.lo + 1 - tried }()
	if hi < f.lo {
		return nil
	}
	if try(f.lo) {
		return met
	}
	// Gallop up from lo (a deployment short of capacity usually needs
	// only a few more replicas), then bisect.
	lo := f.lo // fails
	for {
		next := min(2*lo, hi)
		if next <= lo {
			return nil
		}
		if try(next) {
			hi = next
			break
		}
		lo = next
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if try(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	// met holds the last success, which is hi: a later failure never
	// replaces it.
	return met
}

// simulate runs each of in's judged loads on r replicas of cfg's
// resolved deployment d, stopping at the first that misses the SLO, and
// judges the worst figures against in.SLO. usd is the GPU's price per
// hour. It returns the candidate and the simulation runs it took.
func (in *Input) simulate(cfg Config, r int, d simulate.Deployment, usd float64) (Candidate, int) {
	cfg.Replicas = r
	c := Candidate{Config: cfg, Deployment: d}
	runs := 0
	for i, w := range in.loads() {
		cl, err := simulate.Replicated(d, r, cfg.Routing)
		if err != nil {
			c.Outcome, c.Reason, c.PrunedUpTo = Pruned, err.Error(), r
			in.price(&c, usd, nil)
			return c, runs
		}
		runs++
		m := Measure(simulate.Run(cl, w), in.SLO)
		if i == 0 {
			c.Measured = m
		} else {
			c.Measured = worst(c.Measured, m)
		}
		if c.Misses = in.SLO.Check(c.Measured); len(c.Misses) > 0 {
			break
		}
	}
	c.Outcome = Met
	if len(c.Misses) > 0 {
		c.Outcome = Missed
	}
	in.price(&c, usd, &c.Measured)
	return c, runs
}

// worst is the worse of a and b figure by figure: the higher latencies,
// the lower goodput, the fewer finished. An SLO that a and b each meet is
// met by worst(a, b), and one that either misses is missed by it.
func worst(a, b Measured) Measured {
	a.TTFTP50, a.TTFTP90, a.TTFTP99 = max(a.TTFTP50, b.TTFTP50), max(a.TTFTP90, b.TTFTP90), max(a.TTFTP99, b.TTFTP99)
	a.TPOTP99, a.E2EP99 = max(a.TPOTP99, b.TPOTP99), max(a.E2EP99, b.E2EP99)
	a.Goodput, a.Makespan = min(a.Goodput, b.Goodput), max(a.Makespan, b.Makespan)
	if b.Requests > 0 && float64(b.Finished)/float64(b.Requests) < float64(a.Finished)/float64(max(a.Requests, 1)) {
		a.Requests, a.Finished, a.OutputTokens = b.Requests, b.Finished, b.OutputTokens
	}
	return a
}

// searchBatch sizes a batch job: one replica's time to finish n requests
// is a + b·n, fitted on the sample and half of it; r replicas finish in
// a + b·ceil(N/r). It returns the fewest replicas that meet the deadline,
// with the candidate one fewer as the one that missed.
func (in *Input) searchBatch(f *family, best *Candidate, res *Result) *Candidate {
	if in.ended() {
		return nil // SearchContext returns ctx's error
	}
	w := in.Workload
	half := w[:max(len(w)/2, 1)]
	t1 := in.makespan(f, w)
	t0 := in.makespan(f, half)
	res.Runs += 2
	if t1 == never || t0 == never {
		res.Skipped += f.maxR - f.lo + 1
		return nil
	}
	slope := float64(t1-t0) / float64(len(w)-len(half))
	if len(w) == len(half) {
		slope = float64(t1) / float64(len(w))
	}
	fixed := float64(t1) - slope*float64(len(w))
	finish := func(r int) time.Duration {
		n := (in.BatchRequests + r - 1) / r
		return time.Duration(math.Max(fixed+slope*float64(n), 0))
	}
	mk := func(r int) Candidate {
		c := Candidate{Config: f.cfg, Deployment: f.d}
		c.Replicas = r
		c.Measured = Measured{Requests: in.BatchRequests, Makespan: finish(r)}
		c.Misses = in.SLO.Check(c.Measured)
		c.Outcome = Met
		if len(c.Misses) > 0 {
			c.Outcome = Missed
		}
		in.price(&c, f.price, &c.Measured)
		return c
	}
	// finish is monotone in r: find the fewest replicas by bisection on
	// the model (no further simulation).
	lo, hi := f.lo, f.maxR
	if finish(hi) > in.SLO.Deadline {
		res.Candidates = append(res.Candidates, mk(hi))
		res.Simulated++
		res.Skipped += f.maxR - f.lo
		return nil
	}
	for lo < hi {
		mid := lo + (hi-lo)/2
		if finish(mid) <= in.SLO.Deadline {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	c := mk(lo)
	n := 1
	if lo > f.lo {
		res.Candidates = append(res.Candidates, mk(lo-1))
		n++
	}
	res.Candidates = append(res.Candidates, c)
	res.Simulated += n
	res.Skipped += f.maxR - f.lo + 1 - n
	if best != nil && c.cost() >= best.cost() {
		return nil
	}
	return &c
}

// makespan simulates w on one replica of f and returns when it finished.
func (in *Input) makespan(f *family, w []simulate.Arrival) time.Duration {
	e, err := simulate.NewEngine(f.d)
	if err != nil {
		return never
	}
	return Measure(simulate.Run(e, w), SLO{}).Makespan
}

// ended reports whether the search's context ended (see SearchContext).
func (in *Input) ended() bool { return in.ctx != nil && in.ctx.Err() != nil }

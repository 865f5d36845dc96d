package plan_test

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
	"github.com/tokenpace/tokenpace/simulate/plan"
)

func gpus(t testing.TB, names ...string) []simulate.GPU {
	t.Helper()
	var out []simulate.GPU
	for _, n := range names {
		g, err := simulate.LookupGPU(n)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, g)
	}
	return out
}

func model(t testing.TB, name string) simulate.Model {
	t.Helper()
	m, err := simulate.LookupModel(name)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func arrivals(t testing.TB, w simulate.Workload) []simulate.Arrival {
	t.Helper()
	a, err := w.Arrivals()
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// smallSpace is small enough to simulate every configuration, and holds
// configurations that fit or not, pass or miss on bandwidth, on prefill
// and on capacity.
func smallSpace(t testing.TB) []plan.Input {
	t.Helper()
	space := plan.Space{
		GPUs:       gpus(t, "l4", "a10g", "rtx-4090", "a100-80gb"),
		TP:         []int{1, 2},
		Precisions: []simulate.Precision{simulate.BF16, simulate.FP8},
		MaxBatch:   []int{8, 64},
		Routings:   []simulate.Routing{simulate.LeastOutstanding, simulate.RoundRobin},
		MaxGPUs:    4,
	}
	load := arrivals(t, simulate.Workload{Rate: 12, Requests: 400, Prompt: simulate.TokenDist{Mean: 800, CV: 0.5}, Output: simulate.TokenDist{Mean: 80, CV: 0.5}, Seed: 3})
	tmpl := simulate.Deployment{Model: model(t, "llama-3.1-8b")}
	shared := arrivals(t, simulate.Workload{Rate: 12, Requests: 400, Prompt: simulate.TokenDist{Mean: 1500}, Output: simulate.TokenDist{Mean: 60, CV: 0.5},
		PrefixTokens: 1200, Prefixes: 5, Seed: 4})
	affinity := space
	affinity.Routings = []simulate.Routing{simulate.PrefixAffinity, simulate.RoundRobin}
	var draws [][]simulate.Arrival
	for seed := uint64(5); seed < 7; seed++ {
		draws = append(draws, arrivals(t, simulate.Workload{Rate: 12, Requests: 400, Prompt: simulate.TokenDist{Mean: 800, CV: 0.5}, Output: simulate.TokenDist{Mean: 80, CV: 0.5}, Seed: seed}))
	}
	return []plan.Input{
		{Template: tmpl, Workload: load, Samples: draws, Headroom: 0.2, Space: space, SLO: plan.SLO{TTFTP99: 400 * time.Millisecond, TPOTP99: 30 * time.Millisecond}},
		{Template: tmpl, Workload: shared, Space: affinity, SLO: plan.SLO{TTFTP90: 80 * time.Millisecond, TTFTP99: 250 * time.Millisecond}},
		{Template: tmpl, Workload: load, Space: space, SLO: plan.SLO{TTFTP99: 400 * time.Millisecond, TPOTP99: 30 * time.Millisecond}},
		{Template: tmpl, Workload: load, Space: space, SLO: plan.SLO{TTFTP50: 150 * time.Millisecond, E2EP99: 8 * time.Second}},
		{Template: tmpl, Workload: load[:64], Space: space, BatchRequests: 20000, SLO: plan.SLO{Deadline: 30 * time.Minute}},
	}
}

// Every configuration of a small space is simulated: none that Search pruned
// meets the SLO, and Search's pick costs what the cheapest that meets it
// costs.
func TestPlanPruningMatchesBruteForce(t *testing.T) {
	if raceEnabled {
		// 960 simulations on the test's one goroutine: package plan starts
		// none, so the race detector has nothing to watch, and makes them
		// five times slower (54 s against 10 s). .ci/run runs it without
		// -race.
		t.Skip("simulates every configuration of five spaces; run without -race (go test -run 'TestPlanPruningMatchesBruteForce$' ./simulate/plan)")
	}
	for i, in := range smallSpace(t) {
		res, err := plan.Search(in)
		if err != nil {
			t.Fatal(err)
		}
		prunedUpTo := map[plan.Config]int{}
		for _, c := range res.Candidates {
			if c.Outcome == plan.Pruned {
				k := c.Config
				k.Replicas = 0
				prunedUpTo[k] = c.PrunedUpTo
			}
		}
		if res.Pruned == 0 {
			t.Errorf("case %d: nothing pruned; the space should exercise the bounds", i)
		}
		var cheapest *plan.Candidate
		met := 0
		for _, g := range in.Space.GPUs {
			for _, tp := range in.Space.TP {
				for _, p := range in.Space.Precisions {
					for _, b := range in.Space.MaxBatch {
						for _, rt := range in.Space.Routings {
							for r := 1; r*tp <= in.Space.MaxGPUs; r++ {
								cfg := plan.Config{GPU: g, TP: tp, Replicas: r, Precision: p, MaxBatch: b, Routing: rt}
								c := in.Evaluate(cfg)
								k := cfg
								k.Replicas = 0
								pruned := r <= prunedUpTo[k]
								if pruned && c.Outcome == plan.Met {
									t.Errorf("case %d: %v was pruned but meets the SLO: %+v", i, cfg, c.Measured)
								}
								if c.Outcome == plan.Met {
									met++
									if cheapest == nil || costOf(c) < costOf(*cheapest) {
										cheapest = &c
									}
								}
							}
						}
					}
				}
			}
		}
		if met == 0 {
			t.Fatalf("case %d: no configuration meets the SLO; the test needs some", i)
		}
		if res.Best == nil {
			t.Fatalf("case %d: Search found nothing; brute force found %v", i, cheapest.Config)
		}
		if costOf(*res.Best) != costOf(*cheapest) {
			t.Errorf("case %d: Search's best %v costs %g; brute force's %v costs %g", i, res.Best.Config, costOf(*res.Best), cheapest.Config, costOf(*cheapest))
		}
		if got := res.Simulated + res.Pruned + res.Skipped; got != res.Considered {
			t.Errorf("case %d: simulated %d + pruned %d + skipped %d = %d, want considered %d", i, res.Simulated, res.Pruned, res.Skipped, got, res.Considered)
		}
		t.Logf("case %d: %d considered, %d simulated, %d pruned, %d skipped; %d of %d met by brute force; best %v", i, res.Considered, res.Simulated, res.Pruned, res.Skipped, met, res.Considered, res.Best.Config)
	}
}

func costOf(c plan.Candidate) float64 { return c.Cost() }

// A pick judged on several arrival draws with headroom meets the SLO on
// each draw alone at the raised rate, and its reported figures are the
// worst of them; judged on one draw at the offered rate, a cheaper
// deployment at the edge of capacity can pass.
func TestPlanPickHoldsOnEveryDraw(t *testing.T) {
	w := simulate.Workload{Rate: 22, Requests: 800, Prompt: simulate.TokenDist{Mean: 1000}, Output: simulate.TokenDist{Mean: 60}, Seed: 1}
	var draws [][]simulate.Arrival
	for i := range 3 {
		d := w
		d.Seed += uint64(i)
		draws = append(draws, arrivals(t, d))
	}
	base := plan.Input{
		Template: simulate.Deployment{Model: model(t, "llama-3.1-8b")},
		Workload: draws[0],
		SLO:      plan.SLO{TTFTP99: 180 * time.Millisecond, TPOTP99: 50 * time.Millisecond},
		Space:    plan.Space{GPUs: gpus(t, "mi300x"), TP: []int{1}, Precisions: []simulate.Precision{simulate.FP8}, MaxBatch: []int{16, 32, 64}, MaxGPUs: 8},
	}
	robust := base
	robust.Samples, robust.Headroom = draws[1:], 0.1
	one, err := plan.Search(base)
	if err != nil || one.Best == nil {
		t.Fatalf("Search(one draw) = %v, %v; want a pick", one, err)
	}
	res, err := plan.Search(robust)
	if err != nil || res.Best == nil {
		t.Fatalf("Search(3 draws, 10%% headroom) = %v, %v; want a pick", res, err)
	}
	if costOf(*res.Best) <= costOf(*one.Best) {
		t.Errorf("Search(3 draws, 10%% headroom) picked %v at $%g/h; want dearer than the one-draw pick %v at $%g/h (this load sits at the edge of one replica)",
			res.Best.Config, costOf(*res.Best), one.Best.Config, costOf(*one.Best))
	}
	var ttft time.Duration
	for i, d := range draws {
		alone := base
		alone.Workload = d
		alone.Headroom = 0.1
		c := alone.Evaluate(res.Best.Config)
		if c.Outcome != plan.Met {
			t.Errorf("pick %v on draw %d alone at 22 req/s: %v %v, want met", res.Best.Config, i, c.Outcome, c.Misses)
		}
		ttft = max(ttft, c.Measured.TTFTP99)
	}
	if res.Best.Measured.TTFTP99 != ttft {
		t.Errorf("pick's TTFT p99 = %v, want the worst of the draws %v", res.Best.Measured.TTFTP99, ttft)
	}
	if res.Runs <= res.Simulated {
		t.Errorf("runs %d, simulated %d: a candidate that meets the SLO on the first draw should run the others too", res.Runs, res.Simulated)
	}
}

func TestPlanErrors(t *testing.T) {
	load := arrivals(t, simulate.Workload{Rate: 1, Requests: 10, Prompt: simulate.TokenDist{Mean: 10}, Output: simulate.TokenDist{Mean: 10}})
	for _, tc := range []struct {
		name string
		in   plan.Input
	}{
		{"no workload", plan.Input{SLO: plan.SLO{TTFTP99: time.Second}}},
		{"no SLO", plan.Input{Workload: load}},
		{"batch without deadline", plan.Input{Workload: load, BatchRequests: 10}},
		{"negative limit", plan.Input{Workload: load, SLO: plan.SLO{TTFTP99: -1}}},
		{"goodput above 1", plan.Input{Workload: load, SLO: plan.SLO{TTFTP99: time.Second, Goodput: 2}}},
		{"zero TP", plan.Input{Workload: load, SLO: plan.SLO{TTFTP99: time.Second}, Space: plan.Space{TP: []int{0}}}},
		{"negative headroom", plan.Input{Workload: load, SLO: plan.SLO{TTFTP99: time.Second}, Headroom: -0.1}},
		{"NaN headroom", plan.Input{Workload: load, SLO: plan.SLO{TTFTP99: time.Second}, Headroom: math.NaN()}},
		{"empty sample", plan.Input{Workload: load, SLO: plan.SLO{TTFTP99: time.Second}, Samples: [][]simulate.Arrival{nil}}},
		// A server answers every request of the load 400: no pick serves it
		// (a search recommended 55 GPUs for it).
		{"prompts over the context", plan.Input{Template: simulate.Deployment{Model: model(t, "llama-3.1-8b")},
			Workload: arrivals(t, simulate.Workload{Rate: 1, Requests: 10, Prompt: simulate.TokenDist{Mean: 200_000}, Output: simulate.TokenDist{Mean: 10}}),
			SLO:      plan.SLO{TTFTP99: 100 * time.Second}}},
	} {
		if _, err := plan.Search(tc.in); !errors.Is(err, simulate.ErrInvalid) {
			t.Errorf("Search(%s) error = %v, want ErrInvalid", tc.name, err)
		}
	}
}

// planScenarios are the searches BenchmarkPlanSearch times.
func planScenarios(b *testing.B) []struct {
	name string
	in   plan.Input
} {
	// Three draws of each load, judged at 10% above its rate: what
	// tokenpace plan does by default.
	draws := func(w simulate.Workload) [][]simulate.Arrival {
		var out [][]simulate.Arrival
		for i := range 3 {
			d := w
			d.Seed += uint64(i)
			out = append(out, arrivals(b, d))
		}
		return out
	}
	voice := draws(simulate.Workload{Rate: 40, Requests: 2400, Prompt: simulate.TokenDist{Mean: 1000}, Output: simulate.TokenDist{Mean: 60}})
	chat := draws(simulate.Workload{Rate: 10, Requests: 1200, Prompt: simulate.TokenDist{Mean: 2000, CV: 0.5}, Output: simulate.TokenDist{Mean: 300, CV: 0.5}, Seed: 2})
	return []struct {
		name string
		in   plan.Input
	}{
		{"voicebot-8b", plan.Input{Template: simulate.Deployment{Model: model(b, "llama-3.1-8b")}, Workload: voice[0], Samples: voice[1:], Headroom: 0.1,
			SLO: plan.SLO{TTFTP99: 180 * time.Millisecond, TPOTP99: 50 * time.Millisecond}}},
		{"chat-70b", plan.Input{Template: simulate.Deployment{Model: model(b, "llama-3.1-70b")}, Workload: chat[0], Samples: chat[1:], Headroom: 0.1,
			SLO: plan.SLO{TTFTP99: time.Second, TPOTP99: 40 * time.Millisecond}}},
	}
}

// BenchmarkPlanSearch searches the default space (every priced GPU × TP
// 1, 2, 4, 8 × bf16, fp8, int4 × 5 batch sizes × up to 64 GPUs: 21,600
// configurations) for a voice bot (Llama 3.1 8B, 40 requests/s, 1000
// prompt and 60 output tokens, TTFT p99 ≤ 180 ms, TPOT p99 ≤ 50 ms) and a
// chat service (Llama 3.1 70B, 10 requests/s, log-normal 2000 prompt and
// 300 output tokens, TTFT p99 ≤ 1 s, TPOT p99 ≤ 40 ms), each judged on
// three arrival draws at 10% above the rate, as tokenpace plan does.
// The 1-draw variants judge on the first draw at the offered rate, for
// comparison.
func BenchmarkPlanSearch(b *testing.B) {
	for _, sc := range planScenarios(b) {
		one := sc.in
		one.Samples, one.Headroom = nil, 0
		for _, v := range []struct {
			name string
			in   plan.Input
		}{{sc.name + "/3-draws-10pct", sc.in}, {sc.name + "/1-draw", one}} {
			b.Run(v.name, func(b *testing.B) {
				var res *plan.Result
				for b.Loop() {
					var err error
					if res, err = plan.Search(v.in); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(res.Considered), "configs")
				b.ReportMetric(float64(res.Runs), "simulations")
				b.ReportMetric(float64(res.Pruned), "pruned")
			})
		}
	}
}

// BenchmarkPlanSimulateOne is the cost of simulating one configuration of
// each BenchmarkPlanSearch scenario (the pick's family with one replica
// fewer than the pick, so a loaded one): what brute force pays per
// configuration.
func BenchmarkPlanSimulateOne(b *testing.B) {
	for _, sc := range planScenarios(b) {
		res, err := plan.Search(sc.in)
		if err != nil || res.Best == nil {
			b.Fatal(err, res)
		}
		cfg := res.Best.Config
		cfg.Replicas = max(cfg.Replicas-1, 1)
		b.Run(sc.name, func(b *testing.B) {
			for b.Loop() {
				sc.in.Evaluate(cfg)
			}
		})
	}
}

// endsAfter is a context whose Err reports context.Canceled from its nth
// call on: a search cancelled part way, on no clock.
type endsAfter struct {
	context.Context
	calls, n int
}

func (c *endsAfter) Err() error {
	if c.calls++; c.calls >= c.n {
		return context.Canceled
	}
	return nil
}

// SearchContext ends with its context's error: before any candidate when
// the context has ended, and part way through a search whose context
// ends then, having simulated no further candidate. Search took no
// context: a caller could not stop it (the CLI left its search running
// on Ctrl-C until the process ended).
func TestSearchContextEnds(t *testing.T) {
	in := smallSpace(t)[2]
	full, err := plan.Search(in)
	if err != nil || full.Simulated < 4 {
		t.Fatalf("Search: %v, %d simulated; want a search of several candidates", err, full.Simulated)
	}
	for _, n := range []int{1, 3} {
		ctx := &endsAfter{Context: context.Background(), n: n}
		res, err := plan.SearchContext(ctx, in)
		if !errors.Is(err, context.Canceled) || res != nil {
			t.Errorf("context ending at its Err call %d: SearchContext = %v, %v; want nil, context.Canceled", n, res, err)
		}
		if ctx.calls > full.Simulated+2 {
			t.Errorf("context ending at its Err call %d: asked %d times, over the %d candidates of the whole search", n, ctx.calls, full.Simulated)
		}
	}
}

package simulate_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
)

func TestPredictAgreesWithEngine(t *testing.T) {
	d := simulate.Deployment{}
	p, err := simulate.Predict(d, simulate.Scenario{PromptTokens: 3000, OutputTokens: 200})
	if err != nil {
		t.Fatal(err)
	}
	r := run(t, d, simulate.Identical(1, simulate.Request{PromptTokens: 3000, OutputTokens: 200}))[0]
	if p.TTFT != r.TTFT || p.E2E != r.E2E || p.TPOT != r.TPOT() {
		t.Errorf("Predict = TTFT %v, E2E %v, TPOT %v; engine run = %v, %v, %v", p.TTFT, p.E2E, p.TPOT, r.TTFT, r.E2E, r.TPOT())
	}
	if p.Bound != simulate.MemoryBound {
		t.Errorf("single-stream 8B on H100 bound = %s, want memory", p.Bound)
	}
}

// TestPredictRefusesAPromptOverTheContext: a prompt longer than the
// model's context is answered 400 by every server; predict gave figures
// for it (and, for 99,999,999,999 tokens, durations that wrapped).
func TestPredictRefusesAPromptOverTheContext(t *testing.T) {
	for _, n := range []int{131_073, 99_999_999_999} {
		if _, err := simulate.Predict(simulate.Deployment{}, simulate.Scenario{PromptTokens: n, OutputTokens: 1}); !errors.Is(err, simulate.ErrInvalid) {
			t.Errorf("Predict(%d prompt tokens) error = %v, want ErrInvalid", n, err)
		}
	}
	// A prompt that fills the context, as published prefill measurements run.
	if _, err := simulate.Predict(simulate.Deployment{}, simulate.Scenario{PromptTokens: 131_072, OutputTokens: 1}); err != nil {
		t.Errorf("Predict(131,072 prompt tokens) error = %v, want figures", err)
	}
}

func TestPredictCachedPromptCutsTTFT(t *testing.T) {
	cold, err := simulate.Predict(simulate.Deployment{}, simulate.Scenario{PromptTokens: 4000, OutputTokens: 10})
	if err != nil {
		t.Fatal(err)
	}
	warm, err := simulate.Predict(simulate.Deployment{}, simulate.Scenario{PromptTokens: 4000, CachedTokens: 3900, OutputTokens: 10})
	if err != nil {
		t.Fatal(err)
	}
	if !(warm.TTFT*5 < cold.TTFT) {
		t.Errorf("TTFT cached %v vs cold %v: want a large drop", warm.TTFT, cold.TTFT)
	}
}

func TestPredictConcurrencyRaisesAggregate(t *testing.T) {
	one, _ := simulate.Predict(simulate.Deployment{}, simulate.Scenario{Concurrency: 1})
	many, _ := simulate.Predict(simulate.Deployment{}, simulate.Scenario{Concurrency: 64})
	if !(many.AggregateTPS > 20*one.AggregateTPS) || !(many.TPS < one.TPS) {
		t.Errorf("aggregate TPS 1 → 64 streams: %.0f → %.0f, per stream %.0f → %.0f; want aggregate up >20×, per stream down",
			one.AggregateTPS, many.AggregateTPS, one.TPS, many.TPS)
	}
	big, _ := simulate.Predict(simulate.Deployment{MaxRunning: 1024}, simulate.Scenario{Concurrency: 2048, PromptTokens: 100, OutputTokens: 100})
	if big.Queue == 0 || big.Bound != simulate.ComputeBound {
		t.Errorf("2048 streams on 1024 slots: queue %v, bound %s; want queueing and compute-bound", big.Queue, big.Bound)
	}
}

func TestPredictRejects(t *testing.T) {
	for _, s := range []simulate.Scenario{{PromptTokens: -1}, {OutputTokens: -5}, {Concurrency: -2}, {PromptTokens: 100, CachedTokens: 100}, {CachedTokens: -1}, {Concurrency: 1_000_000, OutputTokens: 1000}} {
		if _, err := simulate.Predict(simulate.Deployment{}, s); !errors.Is(err, simulate.ErrInvalid) {
			t.Errorf("Predict(%+v) = %v, want ErrInvalid", s, err)
		}
	}
}

func TestPredictArithmeticText(t *testing.T) {
	d := anchor(t)
	p, err := simulate.Predict(d, simulate.Scenario{PromptTokens: 1, OutputTokens: 2})
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(p.Arithmetic, "\n")
	if want := "35 GB / 1000 GB/s = 35 ms per token ≈ 28.6 TPS"; !strings.Contains(text, want) {
		t.Errorf("Arithmetic lacks %q:\n%s", want, text)
	}
	if strings.Contains(text, "all-reduce") {
		t.Errorf("Arithmetic of one GPU names an all-reduce:\n%s", text)
	}

	// Over two GPUs the all-reduce is explained with the share of the link
	// its bytes reach: 2 per layer of 80, 20 µs each, and 80 layers × 2 ×
	// 8192 × 2 bytes × 2(n−1)/n = 2.62 MB a token at 0.5 × 100 GB/s.
	g, err := simulate.CustomGPU(1000, 1000, 1000)
	if err != nil {
		t.Fatal(err)
	}
	g.PeerLinkGBs = 100
	d.GPU, d.GPUs, d.AllReduce, d.AllReduceShare = g, 2, 20*time.Microsecond, 0.5
	p, err = simulate.Predict(d, simulate.Scenario{PromptTokens: 1000, OutputTokens: 2})
	if err != nil {
		t.Fatal(err)
	}
	text = strings.Join(p.Arithmetic, "\n")
	want := fmt.Sprintf("all-reduce: 2 per layer, 20 µs each, and the activations at 0.5 of 100 GB/s per GPU: %.3g ms a decode step of 1 token, %.3g ms for the prefill of 1000 tokens",
		2*float64(d.Model.Layers)*0.020+2*float64(d.Model.Layers)*2*float64(d.Model.Hidden)*2*0.5/50e9*1e3,
		2*float64(d.Model.Layers)*0.020+1000*2*float64(d.Model.Layers)*2*float64(d.Model.Hidden)*2*0.5/50e9*1e3)
	if !strings.Contains(text, want) {
		t.Errorf("Arithmetic lacks %q:\n%s", want, text)
	}
}

// TestPredictClosedLoop checks the closed loop: one client sending three
// requests one after another sees the figures of a single request, and
// the run lasts three times as long.
func TestPredictClosedLoop(t *testing.T) {
	one, err := simulate.Predict(simulate.Deployment{}, simulate.Scenario{PromptTokens: 500, OutputTokens: 50})
	if err != nil {
		t.Fatal(err)
	}
	three, err := simulate.Predict(simulate.Deployment{}, simulate.Scenario{PromptTokens: 500, OutputTokens: 50, Requests: 3})
	if err != nil {
		t.Fatal(err)
	}
	if three.TTFT != one.TTFT || three.TPOT != one.TPOT || three.E2E != one.E2E {
		t.Errorf("closed loop of 3 on one client: TTFT %v, TPOT %v, E2E %v; want one request's %v, %v, %v", three.TTFT, three.TPOT, three.E2E, one.TTFT, one.TPOT, one.E2E)
	}
	if got, want := three.AggregateTPS, one.AggregateTPS; math.Abs(got-want) > 1e-6*want {
		t.Errorf("closed loop of 3 on one client: aggregate TPS %v, want %v (one request at a time)", got, want)
	}
	if _, err := simulate.Predict(simulate.Deployment{}, simulate.Scenario{Requests: -1}); !errors.Is(err, simulate.ErrInvalid) {
		t.Errorf("Predict(Requests: -1) = %v, want ErrInvalid", err)
	}
}

// TestPredictSpread checks Scenario.Spread: clients started one after
// another do not prefill together, so a long prompt's mean TTFT under a
// closed loop is close to one request's alone, where clients started
// together queue behind each other's prefill. The front end is left out:
// with it, each client's next request reaches the engine after the step
// that began when its previous one ended, and waits for that step too,
// which is not what Spread is about.
func TestPredictSpread(t *testing.T) {
	d := simulate.Deployment{FrontEndPerChunk: -1}
	s := simulate.Scenario{PromptTokens: 6000, OutputTokens: 200, Concurrency: 8, Requests: 32}
	alone, err := simulate.Predict(d, simulate.Scenario{PromptTokens: 6000, OutputTokens: 200})
	if err != nil {
		t.Fatal(err)
	}
	together, err := simulate.Predict(d, s)
	if err != nil {
		t.Fatal(err)
	}
	s.Spread = true
	spread, err := simulate.Predict(d, s)
	if err != nil {
		t.Fatal(err)
	}
	if !(spread.TTFT < alone.TTFT*6/5) || !(together.TTFT > 2*alone.TTFT) {
		t.Errorf("mean TTFT of 8 clients × 6000-token prompts: spread %v, together %v; want spread under 1.2× and together over 2× one request's %v",
			spread.TTFT, together.TTFT, alone.TTFT)
	}
	if spread.Scenario.Spread != true || spread.AggregateTPS <= alone.AggregateTPS {
		t.Errorf("spread run: scenario %+v, aggregate %v TPS; want Spread kept and more than one stream's %v", spread.Scenario, spread.AggregateTPS, alone.AggregateTPS)
	}
	one := simulate.Scenario{PromptTokens: 500, OutputTokens: 50, Spread: true}
	a, _ := simulate.Predict(d, one)
	one.Spread = false
	b, _ := simulate.Predict(d, one)
	if a.TTFT != b.TTFT || a.E2E != b.E2E {
		t.Errorf("Spread with one client: TTFT %v, E2E %v; want the plain run's %v, %v", a.TTFT, a.E2E, b.TTFT, b.E2E)
	}
}

// TestPredictFirstTokenFromDecode: an engine that samples the first token
// in the decode step after the prefill (TurboMind of LMDeploy v0.1) gives
// it one decode step later; the tokens after it keep their pace.
func TestPredictFirstTokenFromDecode(t *testing.T) {
	s := simulate.Scenario{PromptTokens: 128, OutputTokens: 64}
	base, err := simulate.Predict(simulate.Deployment{}, s)
	if err != nil {
		t.Fatal(err)
	}
	late, err := simulate.Predict(simulate.Deployment{FirstTokenFromDecode: true}, s)
	if err != nil {
		t.Fatal(err)
	}
	if gap := late.TTFT - base.TTFT; math.Abs(float64(gap-base.TPOT)) > 0.05*float64(base.TPOT) {
		t.Errorf("TTFT = %v, want %v + one decode step (%v)", late.TTFT, base.TTFT, base.TPOT)
	}
	if math.Abs(float64(late.TPOT-base.TPOT)) > 0.02*float64(base.TPOT) {
		t.Errorf("TPOT = %v, want %v", late.TPOT, base.TPOT)
	}
	r := run(t, simulate.Deployment{FirstTokenFromDecode: true}, simulate.Identical(1, simulate.Request{PromptTokens: 128, OutputTokens: 64}))[0]
	if r.TTFT != late.TTFT || r.E2E != late.E2E || r.OutputTokens != 64 {
		t.Errorf("engine run = TTFT %v, E2E %v, %d tokens; Predict = %v, %v, want 64 tokens", r.TTFT, r.E2E, r.OutputTokens, late.TTFT, late.E2E)
	}
}

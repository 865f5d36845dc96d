package simulate_test

import (
	"slices"
	"testing"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
)

func TestPoissonIsDeterministic(t *testing.T) {
	r := simulate.Request{PromptTokens: 100, OutputTokens: 10}
	a, b := simulate.Poisson(100, 5, 42, r), simulate.Poisson(100, 5, 42, r)
	if !slices.Equal(a, b) {
		t.Fatal("Poisson with the same seed gave different workloads")
	}
	if c := simulate.Poisson(100, 5, 43, r); slices.Equal(a, c) {
		t.Error("Poisson with different seeds gave the same workload")
	}
	for i := 1; i < len(a); i++ {
		if a[i].At < a[i-1].At || a[i].Request.ID != uint64(i+1) {
			t.Fatalf("arrival %d = %+v after %+v: want ordered times and IDs 1..n", i, a[i], a[i-1])
		}
	}
	// 100 arrivals at 5/s: the last near 20 s.
	if last := a[len(a)-1].At; last < 10*time.Second || last > 30*time.Second {
		t.Errorf("last of 100 arrivals at 5/s = %v, want about 20s", last)
	}
}

func TestRunKeepsWorkloadOrderAndIsRepeatable(t *testing.T) {
	w := []simulate.Arrival{
		{At: 2 * time.Second, Request: simulate.Request{ID: 7, PromptTokens: 50, OutputTokens: 4}},
		{At: 0, Request: simulate.Request{ID: 3, PromptTokens: 50, OutputTokens: 4}},
	}
	r1 := run(t, simulate.Deployment{}, w)
	r2 := run(t, simulate.Deployment{}, w)
	if r1[0].ID != 7 || r1[1].ID != 3 || r1[0].Arrival != 2*time.Second {
		t.Errorf("results = %d@%v, %d@%v; want workload order 7@2s, 3@0s", r1[0].ID, r1[0].Arrival, r1[1].ID, r1[1].Arrival)
	}
	for i := range r1 {
		if !slices.Equal(r1[i].Chunks, r2[i].Chunks) || r1[i].E2E != r2[i].E2E {
			t.Errorf("request %d differs between identical runs", r1[i].ID)
		}
		if !r1[i].Done || r1[i].OutputTokens != 4 || r1[i].Queue != 0 {
			t.Errorf("request %d: %+v, want done with 4 tokens and no queue", r1[i].ID, r1[i])
		}
	}
}

func TestResultFigures(t *testing.T) {
	r := run(t, anchor(t), simulate.Identical(1, simulate.Request{PromptTokens: 10, OutputTokens: 11}))[0]
	itl := r.ITL()
	if len(itl) != 10 {
		t.Fatalf("len(ITL()) = %d, want 10", len(itl))
	}
	var sum time.Duration
	for _, d := range itl {
		sum += d
	}
	if r.TPOT() != sum/10 || r.E2E != r.TTFT+sum {
		t.Errorf("TPOT = %v, E2E = %v; want %v and TTFT %v + %v", r.TPOT(), r.E2E, sum/10, r.TTFT, sum)
	}
	if r.Tokens != nil {
		t.Errorf("Tokens = %v, want nil with one token per emission", r.Tokens)
	}
}

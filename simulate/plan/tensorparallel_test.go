package plan_test

import (
	"strings"
	"testing"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
	"github.com/tokenpace/tokenpace/simulate/plan"
)

// Qwen2.5 7B has 28 attention heads and 4 KV heads: no engine starts it on
// 8 GPUs in tensor parallel. A TPOT only 8 L4s reach was "met" by a
// deployment that cannot run; now TP 8 is left out of the space, with why.
func TestSearchLeavesOutRefusedTensorParallel(t *testing.T) {
	m, _ := simulate.LookupModel("qwen2.5-7b")
	l4, _ := simulate.LookupGPU("l4")
	w, _ := simulate.Workload{Rate: 1, Requests: 100, Prompt: simulate.TokenDist{Mean: 500}, Output: simulate.TokenDist{Mean: 100}}.Arrivals()
	in := plan.Input{
		Template: simulate.Deployment{Model: m},
		Workload: w,
		SLO:      plan.SLO{TPOTP99: 14 * time.Millisecond},
		Space:    plan.Space{GPUs: []simulate.GPU{l4}, TP: []int{4, 8}, Precisions: []simulate.Precision{simulate.BF16}, MaxBatch: []int{16}, MaxGPUs: 8},
	}
	res, err := plan.Search(in)
	if err != nil {
		t.Fatal(err)
	}
	if res.Best != nil {
		t.Errorf("best = %v, want none: TP 4 misses the TPOT and TP 8 is refused", res.Best.Config)
	}
	for _, c := range res.Candidates {
		if c.TP == 8 {
			t.Errorf("candidate %v (%s): TP 8 is refused by the engines, want it out of the space", c.Config, c.Outcome)
		}
	}
	if len(res.Refused) != 1 || !strings.Contains(res.Refused[0], "TP 8: qwen2.5-7b has 28 attention heads and 4 KV heads") {
		t.Errorf("Refused = %q, want TP 8 with the heads", res.Refused)
	}
	if c := in.Evaluate(plan.Config{GPU: l4, TP: 8, Replicas: 1, Precision: simulate.BF16, MaxBatch: 16}); c.Outcome != plan.Pruned || !strings.HasPrefix(c.Reason, "refused by the engine") {
		t.Errorf("Evaluate(TP 8) = %s %q, want pruned, refused by the engine", c.Outcome, c.Reason)
	}
	in.Space.TP = []int{8}
	if _, err := plan.Search(in); err == nil || !strings.Contains(err.Error(), "refuses every degree asked") {
		t.Errorf("Search with only TP 8: err = %v, want a refusal", err)
	}
}

package simulate_test

import (
	"testing"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
)

// TestSeqOverhead: a compiled engine's step costs host time for each
// sequence it decodes (scheduling it, turning its token into output), so
// a decode step of 64 sequences has 63 more of it than a step of one;
// llama.cpp's class has none, and a negative override removes it.
func TestSeqOverhead(t *testing.T) {
	step := func(d simulate.Deployment, c int) time.Duration {
		t.Helper()
		p, err := simulate.Predict(d, simulate.Scenario{PromptTokens: 100, OutputTokens: 2, Concurrency: c})
		if err != nil {
			t.Fatal(err)
		}
		return p.DecodeStep.Overhead
	}
	vllm := simulate.Deployment{}
	per := simulate.DefaultsFor(vllm).SeqOverhead
	if per <= 0 {
		t.Fatalf("DefaultsFor(vLLM class).SeqOverhead = %v, want positive", per)
	}
	if got, want := step(vllm, 64)-step(vllm, 1), 63*per; got != want {
		t.Errorf("vLLM class: decode step overhead at 64 sequences − at 1 = %v, want 63 × %v = %v", got, per, want)
	}
	none := simulate.Deployment{SeqOverhead: -1}
	if got := step(none, 64) - step(none, 1); got != 0 {
		t.Errorf("SeqOverhead −1: overhead at 64 sequences − at 1 = %v, want 0", got)
	}
	llama := simulate.Deployment{Precision: simulate.Q4KM}
	if got := step(llama, 64) - step(llama, 1); got != 0 || simulate.DefaultsFor(llama).SeqOverhead != 0 {
		t.Errorf("llama.cpp class: overhead at 64 sequences − at 1 = %v, SeqOverhead %v; want 0, 0", got, simulate.DefaultsFor(llama).SeqOverhead)
	}
}

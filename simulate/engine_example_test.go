package simulate_test

import (
	"fmt"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
)

// The seed's sanity anchor: a 70B model at 4 bits is 35 GB, and a GPU with
// 1000 GB/s reads it once per token. At full bandwidth (MBU 1) and without
// host overhead the step is exactly that read: the arithmetic (2.2 ms) and
// the unpacking of the 4-bit weights (17.1 ms), fused into the matrix
// kernel, run while the weights stream in.
func ExamplePredict() {
	gpu, _ := simulate.CustomGPU(1000, 165, 48) // bandwidth GB/s, TFLOPS, memory GB
	model, _ := simulate.CustomModel(70, simulate.ModelShape{})
	bits, _ := simulate.CustomPrecision(4)
	p, err := simulate.Predict(
		simulate.Deployment{GPU: gpu, Model: model, Precision: bits, MBU: 1, StepOverhead: -1},
		simulate.Scenario{PromptTokens: 1, OutputTokens: 2},
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Arithmetic[2])
	fmt.Printf("decode step %.2f ms, %.1f TPS, %s bound\n", p.DecodeStep.Time.Seconds()*1e3, p.TPS, p.Bound)
	fmt.Printf("hidden behind the read: arithmetic %.1f ms, unpacking %.1f ms\n", p.DecodeStep.Compute.Seconds()*1e3, p.DecodeStep.Dequant.Seconds()*1e3)
	// Output:
	// decode memory: 35 GB / 1000 GB/s = 35 ms per token ≈ 28.6 TPS at full bandwidth (weights read per step), + 0.000655 GB KV for 1 stream = 35 ms
	// decode step 35.00 ms, 28.6 TPS, memory bound
	// hidden behind the read: arithmetic 2.2 ms, unpacking 17.1 ms
}

// Run simulates a workload offline: here a shared 3000-token system prompt
// that the second request finds in the prefix cache.
func ExampleRun() {
	e, err := simulate.NewEngine(simulate.Deployment{}) // Llama 3.1 8B, bf16, one H100 SXM
	if err != nil {
		fmt.Println(err)
		return
	}
	req := simulate.Request{ID: 1, PromptTokens: 3200, PrefixKey: "system", PrefixTokens: 3000, OutputTokens: 100}
	second := req
	second.ID = 2
	results := simulate.Run(e, []simulate.Arrival{
		{At: 0, Request: req},
		{At: 2 * time.Second, Request: second},
	})
	for _, r := range results {
		fmt.Printf("request %d: cached %d, TTFT %v, %d tokens\n", r.ID, r.CachedTokens, r.TTFT.Round(time.Millisecond), r.OutputTokens)
	}
	// Output:
	// request 1: cached 0, TTFT 89ms, 100 tokens
	// request 2: cached 2992, TTFT 13ms, 100 tokens
}

// An Engine can be driven step by step, as the HTTP server does.
func ExampleEngine() {
	e, _ := simulate.NewEngine(simulate.Deployment{MaxRunning: 1})
	e.Add(0, &simulate.Request{ID: 1, PromptTokens: 500, OutputTokens: 3})
	e.Add(0, &simulate.Request{ID: 2, PromptTokens: 500, OutputTokens: 1})
	for {
		at, ok := e.Next()
		if !ok {
			break
		}
		e.AdvanceTo(at, func(em simulate.Emission) {
			fmt.Printf("%v: request %d +%d token(s) first=%v done=%v queue=%v\n",
				em.At.Round(100*time.Microsecond), em.ID, em.Tokens, em.First, em.Done, em.Queue.Round(100*time.Microsecond))
		})
	}
	// Output:
	// 17.2ms: request 1 +1 token(s) first=true done=false queue=0s
	// 24.1ms: request 1 +1 token(s) first=false done=false queue=0s
	// 31ms: request 1 +1 token(s) first=false done=true queue=0s
	// 48.3ms: request 2 +1 token(s) first=true done=true queue=31ms
}

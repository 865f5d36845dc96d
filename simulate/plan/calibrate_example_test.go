package plan_test

import (
	"fmt"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
	"github.com/tokenpace/tokenpace/simulate/plan"
)

// Calibrate fits a deployment's bandwidth share, tensor share and step time
// to what an endpoint was measured to do. Here the measurements come from a
// deployment with known constants, which the fit recovers.
func ExampleCalibrate() {
	truth := simulate.Deployment{MBU: 0.6, MFU: 0.35, StepOverhead: 2 * time.Millisecond}
	var obs []simulate.Observation
	for _, s := range []simulate.Scenario{
		{PromptTokens: 256, OutputTokens: 64, Concurrency: 1},
		{PromptTokens: 2048, OutputTokens: 64, Concurrency: 16},
	} {
		p, _ := simulate.Predict(truth, s)
		obs = append(obs,
			simulate.Observation{Scenario: s, Metric: simulate.MetricTTFT, Value: float64(p.TTFT) / 1e6},
			simulate.Observation{Scenario: s, Metric: simulate.MetricTPOT, Value: float64(p.TPOT) / 1e6})
	}
	c, err := plan.Calibrate(simulate.Deployment{}, obs)
	if err != nil {
		fmt.Println(err)
		return
	}
	d := c.Deployment
	fmt.Printf("MBU %.2f, MFU %.2f, step overhead %v\n", d.MBU, d.MFU, d.StepOverhead.Round(10*time.Microsecond))

	// One load cannot tell the constants apart.
	_, err = plan.Calibrate(simulate.Deployment{}, obs[:2])
	fmt.Println(err)
	// Output:
	// MBU 0.60, MFU 0.35, step overhead 2ms
	// plan: calibration is not well-posed: 2 distinct figures for 3 constants (MBU, MFU, StepOverhead): add runs at other prompt lengths and concurrencies
}

// DesignCalibration picks the loads that tell a deployment's constants
// apart, and two more to check the fit on.
func ExampleDesignCalibration() {
	fit, check, err := plan.DesignCalibration(simulate.Deployment{}) // Llama 3.1 8B on one H100
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range append(fit, check...) {
		s := r.Scenario
		fmt.Printf("%d clients × %d requests, %d prompt tokens (%d cached), %d output: %s\n",
			s.Concurrency, s.Requests, s.PromptTokens, s.CachedTokens, s.OutputTokens, r.Purpose)
	}
	// Output:
	// 1 clients × 3 requests, 128 prompt tokens (0 cached), 64 output: one stream's decode: weights read plus step overhead
	// 51 clients × 102 requests, 4096 prompt tokens (4032 cached), 64 output: 51 streams of 4096-token contexts sharing a cached prefix: the KV read sets the bandwidth share apart from the step overhead
	// 1 clients × 2 requests, 4096 prompt tokens (0 cached), 8 output: a 4096-token prefill: the tensor share
	// 4 clients × 8 requests, 512 prompt tokens (0 cached), 64 output: held out: 4 streams of 512-token prompts
	// 8 clients × 16 requests, 1024 prompt tokens (0 cached), 64 output: held out: 8 streams of 1024-token prompts
}

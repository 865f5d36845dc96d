package simulate_test

import (
	"fmt"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
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
	c, err := simulate.Calibrate(simulate.Deployment{}, obs)
	if err != nil {
		fmt.Println(err)
		return
	}
	d := c.Deployment
	fmt.Printf("MBU %.2f, MFU %.2f, step overhead %v\n", d.MBU, d.MFU, d.StepOverhead.Round(10*time.Microsecond))

	// One load cannot tell the constants apart.
	_, err = simulate.Calibrate(simulate.Deployment{}, obs[:2])
	fmt.Println(err)
	// Output:
	// MBU 0.60, MFU 0.35, step overhead 2ms
	// simulate: calibration is not well-posed: 2 distinct figures for 3 constants (MBU, MFU, StepOverhead): add runs at other prompt lengths and concurrencies
}

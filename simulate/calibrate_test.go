package simulate_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
)

// observe predicts TTFT and TPOT of d at s, as a benchmark would measure them.
func observe(t *testing.T, d simulate.Deployment, s simulate.Scenario) []simulate.Observation {
	t.Helper()
	p, err := simulate.Predict(d, s)
	if err != nil {
		t.Fatal(err)
	}
	return []simulate.Observation{
		{Scenario: s, Metric: simulate.MetricTTFT, Value: float64(p.TTFT) / 1e6},
		{Scenario: s, Metric: simulate.MetricTPOT, Value: float64(p.TPOT) / 1e6},
	}
}

func TestCalibrateRecoversTheConstants(t *testing.T) {
	g, _ := simulate.LookupGPU("h100-sxm")
	for _, tc := range []struct {
		name string
		x    simulate.Deployment
	}{
		{"one GPU", simulate.Deployment{GPU: g, MBU: 0.55, MFU: 0.3, StepOverhead: 3 * time.Millisecond}},
		{"tensor parallel", simulate.Deployment{GPU: g, GPUs: 4, MBU: 0.7, MFU: 0.4, StepOverhead: time.Millisecond, AllReduce: 50 * time.Microsecond}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obs := append(observe(t, tc.x, simulate.Scenario{PromptTokens: 256, OutputTokens: 64, Concurrency: 1}),
				observe(t, tc.x, simulate.Scenario{PromptTokens: 2048, OutputTokens: 64, Concurrency: 16})...)
			c, err := simulate.Calibrate(simulate.Deployment{GPU: g, GPUs: tc.x.GPUs}, obs)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range c.Residuals {
				if math.Abs(r.Error) > 0.01 {
					t.Errorf("residual %v, want within 1%%", r)
				}
			}
			third := simulate.Scenario{PromptTokens: 1024, OutputTokens: 64, Concurrency: 4}
			want, got := observe(t, tc.x, third), observe(t, c.Deployment, third)
			for i := range want {
				if e := (got[i].Value - want[i].Value) / want[i].Value; math.Abs(e) > 0.02 {
					t.Errorf("calibrated %s at a third load = %.3f, want %.3f (the true deployment's) within 2%%", want[i].Metric, got[i].Value, want[i].Value)
				}
			}
		})
	}
}

func TestCalibrateSaysWhenNotWellPosed(t *testing.T) {
	x := simulate.Deployment{MBU: 0.6}
	one := observe(t, x, simulate.Scenario{PromptTokens: 512, OutputTokens: 64, Concurrency: 1})
	for _, tc := range []struct {
		name string
		obs  []simulate.Observation
	}{
		{"one load", one},
		{"one load twice", append(one, one...)},
		{"decode only", []simulate.Observation{one[1],
			observe(t, x, simulate.Scenario{PromptTokens: 512, OutputTokens: 64, Concurrency: 2})[1],
			observe(t, x, simulate.Scenario{PromptTokens: 512, OutputTokens: 64, Concurrency: 3})[1]}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := simulate.Calibrate(simulate.Deployment{}, tc.obs)
			var ce *simulate.CalibrationError
			if !errors.As(err, &ce) || !errors.Is(err, simulate.ErrIllPosed) {
				t.Fatalf("Calibrate(%s) error = %v, want a *CalibrationError wrapping ErrIllPosed", tc.name, err)
			}
		})
	}
}

package plan_test

import (
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
	"github.com/tokenpace/tokenpace/simulate/plan"
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
			c, err := plan.Calibrate(simulate.Deployment{GPU: g, GPUs: tc.x.GPUs}, obs)
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
			_, err := plan.Calibrate(simulate.Deployment{}, tc.obs)
			var ce *plan.CalibrationError
			if !errors.As(err, &ce) || !errors.Is(err, plan.ErrIllPosed) {
				t.Fatalf("Calibrate(%s) error = %v, want a *CalibrationError wrapping ErrIllPosed", tc.name, err)
			}
		})
	}
}

// TestDesignCalibrationIdentifies runs the designed loads on a deployment
// whose constants are far from the class defaults and calibrates from
// them: the shares come back within 5 % and inside their bands, the step
// overhead too unless the fit names it confounded (a 70B step is mostly
// its weights' read), and the two held-out loads are predicted within 5 %.
func TestDesignCalibrationIdentifies(t *testing.T) {
	g, _ := simulate.LookupGPU("h100-sxm")
	seventy, _ := simulate.LookupModel("llama-3.1-70b")
	for _, tc := range []struct {
		name string
		x    simulate.Deployment
	}{
		{"8B on one GPU", simulate.Deployment{GPU: g, MBU: 0.55, MFU: 0.3, StepOverhead: 3 * time.Millisecond}},
		{"70B on 2 GPUs", simulate.Deployment{GPU: g, GPUs: 2, Model: seventy, Precision: simulate.FP8, MBU: 0.7, MFU: 0.45, StepOverhead: 2 * time.Millisecond}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := simulate.Deployment{GPU: g, GPUs: tc.x.GPUs, Model: tc.x.Model, Precision: tc.x.Precision}
			fit, check, err := plan.DesignCalibration(base)
			if err != nil {
				t.Fatal(err)
			}
			var obs []simulate.Observation
			for _, r := range fit {
				obs = append(obs, observe(t, tc.x, r.Scenario)...)
			}
			c, err := plan.Calibrate(base, obs)
			if err != nil {
				t.Fatal(err)
			}
			truth := []float64{tc.x.MBU, tc.x.MFU, tc.x.StepOverhead.Seconds()}
			for i, b := range c.Bands {
				identifiable := !slices.Contains(c.Confounded, b.Name)
				if (identifiable && math.Abs(b.Value-truth[i]) > 0.05*truth[i]) || b.Low > truth[i]*1.001 || b.High < truth[i]*0.999 {
					t.Errorf("%s = %v (confounded %v), want %.4g inside the band, and within 5%% unless confounded", b.Name, b, c.Confounded, truth[i])
				}
			}
			if slices.Contains(c.Confounded, "MBU") || slices.Contains(c.Confounded, "MFU") || c.Spread > 0.05 {
				t.Errorf("confounded %v, spread %.3f; want the shares identified and predictions at other loads within 5%%", c.Confounded, c.Spread)
			}
			t.Logf("%v, confounded %v, spread %.1f%%", c.Bands, c.Confounded, 100*c.Spread)
			for _, r := range check {
				want, got := observe(t, tc.x, r.Scenario), observe(t, c.Deployment, r.Scenario)
				for i := range want {
					if e := (got[i].Value - want[i].Value) / want[i].Value; math.Abs(e) > 0.05 {
						t.Errorf("%s %s = %.3f, want %.3f within 5%%", r.Purpose, want[i].Metric, got[i].Value, want[i].Value)
					}
				}
			}
		})
	}
}

// TestCalibrateNamesConfounded fits two single-stream runs of short and
// long prompts: the prefill pins the tensor share, but one stream's decode
// cannot tell the bandwidth share from the step overhead. The fit says so
// (the overhead is named, the bandwidth share's band is wide) and how far
// predictions at other loads could differ.
func TestCalibrateNamesConfounded(t *testing.T) {
	x := simulate.Deployment{MBU: 0.55, MFU: 0.3, StepOverhead: 3 * time.Millisecond}
	obs := append(observe(t, x, simulate.Scenario{PromptTokens: 256, OutputTokens: 64, Concurrency: 1}),
		observe(t, x, simulate.Scenario{PromptTokens: 2048, OutputTokens: 64, Concurrency: 1})...)
	c, err := plan.Calibrate(simulate.Deployment{}, obs)
	if err != nil {
		t.Fatalf("Calibrate = %v, want a fit that names what is confounded", err)
	}
	if !slices.Contains(c.Confounded, "StepOverhead") || slices.Contains(c.Confounded, "MFU") {
		t.Errorf("Confounded = %v, want StepOverhead, not MFU", c.Confounded)
	}
	mbu := c.Bands[0]
	if mbu.High/mbu.Low < 1.2 || mbu.Low > x.MBU || mbu.High < x.MBU {
		t.Errorf("MBU band %v, want at least ±10%% wide and holding the true %.2f", mbu, x.MBU)
	}
	if !(c.Spread > 0.02) {
		t.Errorf("Spread = %.3f, want the predictions at other loads to be uncertain (over 2%%)", c.Spread)
	}
}

// TestCalibrateFourRunsOf70B fits a 70B on 2 GPUs from the four runs a
// user would try first (256 and 2048 prompt tokens at 1 and 8 clients):
// the fit is made, not refused; the shares come back within 5 %, and the
// step overhead, small beside a 70B step, is named confounded with a band
// that holds the true value.
func TestCalibrateFourRunsOf70B(t *testing.T) {
	g, _ := simulate.LookupGPU("h100-sxm")
	m, _ := simulate.LookupModel("llama-3.1-70b")
	base := simulate.Deployment{GPU: g, GPUs: 2, Model: m, Precision: simulate.FP8}
	x := base
	x.MBU, x.MFU, x.StepOverhead = 0.7, 0.45, 2*time.Millisecond
	var obs []simulate.Observation
	for _, s := range []simulate.Scenario{{PromptTokens: 256, OutputTokens: 64, Concurrency: 1}, {PromptTokens: 2048, OutputTokens: 64, Concurrency: 1},
		{PromptTokens: 512, OutputTokens: 64, Concurrency: 8}, {PromptTokens: 2048, OutputTokens: 64, Concurrency: 8}} {
		obs = append(obs, observe(t, x, s)...)
	}
	c, err := plan.Calibrate(base, obs)
	if err != nil {
		t.Fatalf("Calibrate = %v, want a fit", err)
	}
	if got := c.Deployment.MBU; math.Abs(got-0.7) > 0.035 {
		t.Errorf("MBU = %.3f, want 0.7 within 5%%", got)
	}
	if got := c.Deployment.MFU; math.Abs(got-0.45) > 0.0225 {
		t.Errorf("MFU = %.3f, want 0.45 within 5%%", got)
	}
	over := c.Bands[2]
	if !slices.Contains(c.Confounded, "StepOverhead") || over.Low > 0.002 || over.High < 0.002 {
		t.Errorf("step overhead %v, confounded %v; want it named confounded with a band holding 2 ms", over, c.Confounded)
	}
}

// TestDesignCalibrationFitsTheCache checks the designed runs of a
// deployment with little KV cache: the KV-heavy run stays within half of
// it, and every run is a valid scenario.
func TestDesignCalibrationFitsTheCache(t *testing.T) {
	g, _ := simulate.LookupGPU("rtx-4090")
	m, _ := simulate.LookupModel("llama-3.1-8b")
	for _, d := range []simulate.Deployment{{GPU: g, Model: m}, {GPU: g, Model: m, KVCapacityTokens: 6000}, {}} {
		fit, check, err := plan.DesignCalibration(d)
		if err != nil {
			t.Fatal(err)
		}
		r, _ := d.Resolved()
		kv := fit[1].Scenario
		if used := kv.Concurrency * (kv.PromptTokens + kv.OutputTokens); used > r.KVCapacityTokens/2 && kv.PromptTokens > 256 {
			t.Errorf("KV-heavy run %+v uses %d tokens of KV, want at most half of %d", kv, used, r.KVCapacityTokens)
		}
		for _, run := range append(fit, check...) {
			if _, err := simulate.Predict(d, run.Scenario); err != nil {
				t.Errorf("designed run %q: %v", run.Purpose, err)
			}
		}
	}
}

// TestCalibrateFitOnTheBandwidthBound fits two runs of a deployment at its
// class defaults, as a bench over loopback measures them: the single
// stream's first token 1.25 ms later than the engine gives it (the
// client's and the HTTP stack's share). The best fit puts the bandwidth
// share on its bound, 1. The fit is made, not refused as confounded, and
// no band passes a share of 1.
func TestCalibrateFitOnTheBandwidthBound(t *testing.T) {
	g, _ := simulate.LookupGPU("h100-sxm")
	m, _ := simulate.LookupModel("llama-3.1-8b")
	d := simulate.Deployment{GPU: g, Model: m}
	obs := append(observe(t, d, simulate.Scenario{PromptTokens: 256, OutputTokens: 64, Concurrency: 1, Requests: 3}),
		observe(t, d, simulate.Scenario{PromptTokens: 2048, OutputTokens: 64, Concurrency: 16, Requests: 16})...)
	obs[0].Value += 1.25
	c, err := plan.Calibrate(d, obs)
	if err != nil {
		t.Fatalf("Calibrate = %v, want a fit", err)
	}
	for _, b := range c.Bands {
		if b.Name != "StepOverhead" && !(b.Low > 0 && b.Low <= b.Value && b.Value <= b.High && b.High <= 1) {
			t.Errorf("band %v, want a share's band within (0, 1] around its value", b)
		}
	}
	if c.Deployment.MBU != 1 {
		t.Errorf("MBU = %.3f, want the fit on the bound this test is about (1)", c.Deployment.MBU)
	}
}

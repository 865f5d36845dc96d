package simulate_test

import (
	"math"
	"testing"

	"github.com/tokenpace/tokenpace/simulate"
)

// TestPredictSpreadAggregateIsTheSteadyRate: a spread closed loop's
// clients stand for a run whose clients all start at once and drift
// apart by jitter, so its aggregate rate is the steady one, concurrency
// × output tokens / E2E. It was counted over the time from the first
// client's start, which a spread start delays by up to one request's
// time: 16 requests from 4 clients came out 16 % under the steady rate.
func TestPredictSpreadAggregateIsTheSteadyRate(t *testing.T) {
	for _, s := range []simulate.Scenario{
		{PromptTokens: 256, OutputTokens: 256, Concurrency: 4, Requests: 16, Spread: true},
		{PromptTokens: 5000, OutputTokens: 500, Concurrency: 5, Requests: 20, Spread: true},
	} {
		p, err := simulate.Predict(simulate.Deployment{}, s)
		if err != nil {
			t.Fatal(err)
		}
		steady := float64(s.Concurrency*s.OutputTokens) / p.E2E.Seconds()
		if math.Abs(p.AggregateTPS/steady-1) > 0.05 {
			t.Errorf("Predict(%+v).AggregateTPS = %.1f, want within 5%% of the steady %.1f (E2E %v)", s, p.AggregateTPS, steady, p.E2E)
		}
	}
}

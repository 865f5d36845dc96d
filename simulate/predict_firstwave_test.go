package simulate_test

import (
	"math"
	"testing"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
)

// TestPredictFirstWaveTogether: a benchmark that sends its first wave of
// Concurrency requests at once and measures every request (vllm bench
// serve at an infinite rate behind --max-concurrency) has that burst's
// queued prefills in its mean TTFT; a spread run alone leaves them out.
// The first wave's share is Concurrency of Requests, and the burst adds
// nothing to a run of one wave or to one client.
func TestPredictFirstWaveTogether(t *testing.T) {
	d := simulate.Deployment{}
	s := simulate.Scenario{PromptTokens: 6000, OutputTokens: 200, Concurrency: 8, Requests: 32, Spread: true}
	spread, err := simulate.Predict(d, s)
	if err != nil {
		t.Fatal(err)
	}
	wave, err := simulate.Predict(d, simulate.Scenario{PromptTokens: 6000, OutputTokens: 200, Concurrency: 8})
	if err != nil {
		t.Fatal(err)
	}
	s.FirstWaveTogether = true
	got, err := simulate.Predict(d, s)
	if err != nil {
		t.Fatal(err)
	}
	want := spread.TTFT + (wave.TTFT-spread.TTFT)*8/32
	if diff := got.TTFT - want; diff < -time.Microsecond || diff > time.Microsecond || got.TTFT <= spread.TTFT*6/5 {
		t.Errorf("mean TTFT, 32 requests from 8 clients, first wave together = %v; want %v (spread %v, one wave together %v)", got.TTFT, want, spread.TTFT, wave.TTFT)
	}
	// The burst holds the clients back by its mean extra wait, and the
	// run by as much.
	tokens := float64(32 * 200)
	wantAgg := tokens / (tokens/spread.AggregateTPS + (wave.TTFT - spread.TTFT).Seconds())
	if math.Abs(got.AggregateTPS/wantAgg-1) > 1e-9 || got.Scenario.FirstWaveTogether != true {
		t.Errorf("first wave together: aggregate %v TPS, scenario %+v; want %v (the spread run's %v over a run longer by the burst's wait) and the field kept", got.AggregateTPS, got.Scenario, wantAgg, spread.AggregateTPS)
	}
	for _, c := range []simulate.Scenario{
		{PromptTokens: 6000, OutputTokens: 200, Concurrency: 8, Requests: 8, Spread: true},
		{PromptTokens: 6000, OutputTokens: 200, Concurrency: 1, Requests: 4, Spread: true},
	} {
		plain, err := simulate.Predict(d, c)
		if err != nil {
			t.Fatal(err)
		}
		c.FirstWaveTogether = true
		burst, err := simulate.Predict(d, c)
		if err != nil {
			t.Fatal(err)
		}
		if burst.TTFT != plain.TTFT || burst.E2E != plain.E2E {
			t.Errorf("Predict(%+v) = TTFT %v, E2E %v; want the run without FirstWaveTogether's %v, %v", c, burst.TTFT, burst.E2E, plain.TTFT, plain.E2E)
		}
	}
}

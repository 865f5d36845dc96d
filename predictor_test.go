package tokenpace_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/metrics"
	"github.com/tokenpace/tokenpace/simulate"
)

// TestPredictTTFT: the primary's TTFT grows by 1 ms per prompt token;
// after requests with prompts of several lengths the Router predicts the
// TTFT of a longer prompt from the learnt line, and the percentile of the
// TTFTs it saw.
func TestPredictTTFT(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sched := &simulate.Fixed{ITL: msec, PerRequest: func(r simulate.Request) (time.Duration, time.Duration) {
			return 50*msec + time.Duration(r.PromptTokens)*msec, 0
		}}
		r := router(t, tokenpace.Policy{}, []simulate.Option{simulate.WithModel("big", sched)}, route("big"))
		if _, ok := r.PredictTTFT("big", 100); ok {
			t.Errorf("PredictTTFT before any request: ok = true, want false")
		}
		var ttfts []time.Duration
		for i := range 10 {
			p := chat("big", 2)
			p.Messages = []openai.ChatCompletionMessageParamUnion{openai.UserMessage(strings.Repeat("word ", 20*(i+1)))}
			s := r.NewStreaming(context.Background(), p)
			readAll(t, s)
			ttfts = append(ttfts, s.Timing().TTFT())
		}
		got, ok := r.PredictTTFT("big", 1000)
		if want := 1050 * msec; !ok || (got-want).Abs() > time.Microsecond {
			t.Errorf("PredictTTFT(big, 1000) = %v, %v, want %v, true", got, ok, want)
		}
		p90, ok := tokenpace.TTFTPercentile(r, "big", 0.9)
		if want := metrics.DistOf(ttfts).P90; !ok || p90 != want {
			t.Errorf("TTFTPercentile(big, 0.9) = %v, %v, want %v, true", p90, ok, want)
		}
		if _, ok := tokenpace.TTFTPercentile(r, "nope", 0.9); ok {
			t.Errorf("TTFTPercentile(nope) ok = true, want false")
		}
		if _, ok := tokenpace.TTFTPercentile(r, "big", 0); ok {
			t.Errorf("TTFTPercentile(big, 0) ok = true, want false")
		}
	})
}

// TestAdmissionByLearntTTFT: a route with a TTFT budget and no rate limit
// is skipped when its learnt TTFT for the prompt does not fit the budget:
// the primary's TTFT is 20 ms + 1 ms per prompt token, so after short
// prompts it is known to need ~520 ms for a 500-token one, over its
// 250 ms budget; the call goes straight to the fallback.
func TestAdmissionByLearntTTFT(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sched := &simulate.Fixed{ITL: msec, PerRequest: func(r simulate.Request) (time.Duration, time.Duration) {
			return 20*msec + time.Duration(r.PromptTokens)*msec, 0
		}}
		big := route("big")
		big.Budget = tokenpace.Budget{TTFT: 250 * msec}
		r := router(t, tokenpace.Policy{}, []simulate.Option{
			simulate.WithModel("big", sched),
			simulate.WithModel("small", &simulate.Fixed{TTFT: 50 * msec, ITL: msec}),
		}, big, route("small"))
		prompt := func(tokens int) openai.ChatCompletionNewParams {
			p := chat("big", 2)
			p.Messages = []openai.ChatCompletionMessageParamUnion{openai.UserMessage(strings.Repeat("word ", tokens))}
			return p
		}
		for i := range 5 {
			if tm := callOK(t, r, prompt(20*(i+1))); tm.Target != "big" {
				t.Fatalf("training call %d answered by %s, want big", i, tm.Target)
			}
		}
		tm := callOK(t, r, prompt(500))
		if got, want := tm.TTFT(), 50*msec; got != want {
			t.Errorf("TTFT() = %v, want %v (straight to the fallback)", got, want)
		}
		if got, want := outcomes(tm), []tokenpace.Outcome{tokenpace.OutcomeSkipped, tokenpace.OutcomeWon}; !slices.Equal(got, want) {
			t.Fatalf("outcomes = %v, want %v", got, want)
		}
		if err := tm.Attempts[0].Err; !errors.Is(err, tokenpace.ErrAdmission) {
			t.Errorf("Attempts[0].Err = %v, want ErrAdmission", err)
		}
	})
}

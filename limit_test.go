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
	"github.com/tokenpace/tokenpace/simulate"
)

// TestAdmissionSkipsToNextTarget: the primary admits one request per
// second. A second request right after the first would wait 880 ms for the
// limiter, plus the 100 ms TTFT learnt for the primary: more than the
// 180 ms TTFT budget, so the call goes to the fallback at once instead of
// queueing. A second later the primary admits again.
func TestAdmissionSkipsToNextTarget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		big := route("big")
		big.Limit = tokenpace.Limit{RPS: 1}
		r := router(t, tokenpace.Policy{Budget: tokenpace.Budget{TTFT: 180 * msec}}, []simulate.Option{
			simulate.WithModel("big", &simulate.Fixed{TTFT: 100 * msec, ITL: 10 * msec}),
			simulate.WithModel("small", &simulate.Fixed{TTFT: 100 * msec, ITL: 10 * msec}),
		}, big, route("small"))
		call := func() *tokenpace.Timing { return callOK(t, r, chat("big", 3)) }
		start := time.Now()
		if tm := call(); tm.Target != "big" {
			t.Fatalf("first call answered by %q, want big", tm.Target)
		}
		if d, ok := r.PredictTTFT("big", 10); !ok || d != 100*msec {
			t.Errorf("PredictTTFT(big) = %v, %v, want 100ms, true", d, ok)
		}
		tm := call()
		if got, want := outcomes(tm), []tokenpace.Outcome{tokenpace.OutcomeSkipped, tokenpace.OutcomeWon}; !slices.Equal(got, want) {
			t.Fatalf("second call: outcomes = %v, want %v", got, want)
		}
		if !errors.Is(tm.Attempts[0].Err, tokenpace.ErrAdmission) {
			t.Errorf("skipped attempt Err = %v, want ErrAdmission", tm.Attempts[0].Err)
		}
		if got := tm.UserTTFT(); got != 100*msec {
			t.Errorf("second call: UserTTFT() = %v, want 100ms (no queueing)", got)
		}
		time.Sleep(time.Second - time.Since(start))
		if tm := call(); tm.Target != "big" || len(tm.Attempts) != 1 {
			t.Errorf("third call: target %q, %d attempts, want big, 1", tm.Target, len(tm.Attempts))
		}
	})
}

// TestLimiterWaits: without a TTFT budget (and on the last route) a
// request waits for the limiter; the wait shows as Queue.
func TestLimiterWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		big := route("big")
		big.Limit = tokenpace.Limit{RPS: 2}
		r := router(t, tokenpace.Policy{}, []simulate.Option{
			simulate.WithModel("big", &simulate.Fixed{TTFT: 100 * msec}),
		}, big)
		var queues []time.Duration
		for range 4 {
			queues = append(queues, callOK(t, r, chat("big", 1)).Queue())
		}
		// Burst 2: two at once; then one every 500 ms, each call taking
		// 100 ms.
		want := []time.Duration{0, 0, 300 * msec, 400 * msec}
		if !slices.Equal(queues, want) {
			t.Errorf("Queue() = %v, want %v", queues, want)
		}
	})
}

// TestTPMNeverAdmits: a request larger than the tokens-per-minute limit
// can never be admitted and is skipped at once.
func TestTPMNeverAdmits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		big := route("big")
		big.Limit = tokenpace.Limit{TPM: 50}
		r := router(t, tokenpace.Policy{}, []simulate.Option{
			simulate.WithModel("big", &simulate.Fixed{TTFT: 100 * msec}),
			simulate.WithModel("small", &simulate.Fixed{TTFT: 100 * msec}),
		}, big, route("small"))
		s := r.NewStreaming(context.Background(), chat("big", 100))
		readAll(t, s)
		tm := s.Timing()
		if got, want := outcomes(tm), []tokenpace.Outcome{tokenpace.OutcomeSkipped, tokenpace.OutcomeWon}; !slices.Equal(got, want) {
			t.Errorf("outcomes = %v, want %v", got, want)
		}
		if !errors.Is(tm.Attempts[0].Err, tokenpace.ErrAdmission) {
			t.Errorf("skipped attempt Err = %v, want ErrAdmission", tm.Attempts[0].Err)
		}
	})
}

// TestAdmissionLongPrompt: the primary's TTFT grows with the prompt (50 ms
// plus 1 ms a token). Once the Router has learnt that, a prompt long
// enough to miss the 180 ms TTFT budget goes to the fallback at once,
// while short ones still go to the primary.
func TestAdmissionLongPrompt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		big := route("big")
		big.Limit = tokenpace.Limit{RPS: 1000}
		sched := &simulate.Fixed{ITL: msec, PerRequest: func(r simulate.Request) (time.Duration, time.Duration) {
			return 50*msec + time.Duration(r.PromptTokens)*msec, 0
		}}
		r := router(t, tokenpace.Policy{Budget: tokenpace.Budget{TTFT: 180 * msec}}, []simulate.Option{
			simulate.WithModel("big", sched),
			simulate.WithModel("small", &simulate.Fixed{TTFT: 30 * msec, ITL: msec}),
		}, big, route("small"))
		call := func(words int) *tokenpace.Timing {
			t.Helper()
			p := chat("big", 2)
			p.Messages = []openai.ChatCompletionMessageParamUnion{openai.UserMessage(strings.Repeat("word ", words))}
			return callOK(t, r, p)
		}
		for _, n := range []int{10, 40, 80} { // learn: all within budget
			if tm := call(n); tm.Target != "big" {
				t.Fatalf("learning call (%d words) answered by %q, want big", n, tm.Target)
			}
		}
		tm := call(1000)
		if got, want := outcomes(tm), []tokenpace.Outcome{tokenpace.OutcomeSkipped, tokenpace.OutcomeWon}; !slices.Equal(got, want) {
			t.Fatalf("long prompt: outcomes = %v, want %v", got, want)
		}
		if !errors.Is(tm.Attempts[0].Err, tokenpace.ErrAdmission) || tm.UserTTFT() != 30*msec {
			t.Errorf("long prompt: skip Err = %v, UserTTFT() = %v, want ErrAdmission, 30ms", tm.Attempts[0].Err, tm.UserTTFT())
		}
		if tm := call(20); tm.Target != "big" {
			t.Errorf("short prompt answered by %q, want big", tm.Target)
		}
	})
}

// TestTPMSettles: a TPM reservation counts max_tokens until the server
// reports what the request used; the rest is given back. Two requests of
// max_tokens 500 under a 600-tokens-per-minute limit: each uses about 20
// tokens, so the second does not wait for the first's unused 480.
func TestTPMSettles(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		big := route("big")
		big.Limit = tokenpace.Limit{TPM: 600}
		r := router(t, tokenpace.Policy{}, []simulate.Option{
			simulate.WithModel("big", &simulate.Fixed{TTFT: 10 * msec}), replyWords(5),
		}, big)
		first := callOK(t, r, chat("big", 500))
		if !first.UsageReported || first.PromptTokens+first.OutputTokens > 50 {
			t.Fatalf("first call used %d+%d tokens (usage %v), want a few", first.PromptTokens, first.OutputTokens, first.UsageReported)
		}
		if got := callOK(t, r, chat("big", 500)).Queue(); got != 0 {
			t.Errorf("second call: Queue() = %v, want 0", got)
		}
	})
}

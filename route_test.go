package tokenpace_test

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

const msec = time.Millisecond

// replyByModel scripts every reply of a simulator by its model: "big"
// answers B1..Bn, any other model S1..Sn.
func replyByModel(n int) simulate.Option {
	return simulate.WithReply(func(ri simulate.ReplyInfo) (string, bool) {
		p := "S"
		if ri.Model == "big" {
			p = "B"
		}
		s := ""
		for i := 1; i <= n; i++ {
			if i > 1 {
				s += " "
			}
			s += p + strconv.Itoa(i)
		}
		return s, true
	})
}

// TestFallbackOnSlowPrefill: the primary's prefill takes 2 s, its TTFT
// budget is 180 ms, so the call moves on to the small model at 180 ms and
// gets its first token 100 ms later, within the small model's own budget.
func TestFallbackOnSlowPrefill(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		small := route("small")
		small.Budget = tokenpace.Budget{TTFT: 150 * msec}
		r := router(t, tokenpace.Policy{Budget: tokenpace.Budget{TTFT: 180 * msec}}, []simulate.Option{
			simulate.WithModel("big", &simulate.Fixed{TTFT: 2 * time.Second, ITL: 20 * msec}),
			simulate.WithModel("small", &simulate.Fixed{TTFT: 100 * msec, ITL: 10 * msec}),
			replyByModel(10),
		}, route("big"), small)
		s := r.NewStreaming(context.Background(), chat("big", 10))
		text := readAll(t, s)
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v, want nil", err)
		}
		if want := "S1 S2 S3 S4 S5 S6 S7 S8 S9 S10"; text != want {
			t.Errorf("content = %q, want %q", text, want)
		}
		tm := s.Timing()
		if got, want := tm.UserTTFT(), 280*msec; got != want {
			t.Errorf("UserTTFT() = %v, want %v", got, want)
		}
		if got, want := tm.TTFT(), 280*msec; got != want {
			t.Errorf("TTFT() = %v, want %v (the caller's)", got, want)
		}
		if got, want := tm.Queue(), time.Duration(0); got != want {
			t.Errorf("Queue() = %v, want %v (no limiter)", got, want)
		}
		if got, want := tm.Attempts[1].TTFT(), 100*msec; got != want {
			t.Errorf("Attempts[1].TTFT() = %v, want %v (the answering route's own)", got, want)
		}
		if tm.Target != "small" || tm.Model != "small" || tm.OutputTokens != 10 || !tm.UsageReported {
			t.Errorf("Timing = target %q model %q tokens %d usage %v, want small small 10 true", tm.Target, tm.Model, tm.OutputTokens, tm.UsageReported)
		}
		if got, want := outcomes(tm), []tokenpace.Outcome{tokenpace.OutcomeBreached, tokenpace.OutcomeWon}; !slices.Equal(got, want) {
			t.Errorf("outcomes = %v, want %v", got, want)
		}
		if got, want := kinds(tm), []tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptFallback}; !slices.Equal(got, want) {
			t.Errorf("kinds = %v, want %v", got, want)
		}
		if a := tm.Attempts[1]; a.Start.Sub(tm.Start) != 180*msec || a.FirstToken.Sub(tm.Start) != 280*msec || a.Tokens != 10 {
			t.Errorf("Attempts[1] = start +%v first token +%v tokens %d, want +180ms +280ms 10", a.Start.Sub(tm.Start), a.FirstToken.Sub(tm.Start), a.Tokens)
		}
		want := []tokenpace.BudgetError{{Target: "big", Phase: tokenpace.PhaseTTFT, Limit: 180 * msec, Observed: 180 * msec}}
		if !slices.Equal(tm.Breaches, want) {
			t.Errorf("Breaches = %+v, want %+v", tm.Breaches, want)
		}
	})
}

// TestFallbackOnServerError: a 500 before the first token falls back at
// once; with every route failing the call ends with the last error.
func TestFallbackOnServerError(t *testing.T) {
	fail := tokenpace.Route{Name: "big", Model: "big",
		Options: []option.RequestOption{option.WithHeader(simulate.FaultHeader, "500")}}
	for _, tc := range []struct {
		name     string
		routes   []tokenpace.Route
		wantErr  bool
		outcomes []tokenpace.Outcome
	}{
		{"fallback", []tokenpace.Route{fail, route("small")}, false, []tokenpace.Outcome{tokenpace.OutcomeFailed, tokenpace.OutcomeWon}},
		{"all fail", []tokenpace.Route{fail}, true, []tokenpace.Outcome{tokenpace.OutcomeFailed}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := router(t, tokenpace.Policy{}, []simulate.Option{
					simulate.WithModel("big", &simulate.Fixed{TTFT: 100 * msec}),
					simulate.WithModel("small", &simulate.Fixed{TTFT: 100 * msec}),
				}, tc.routes...)
				s := r.NewStreaming(context.Background(), chat("big", 5))
				readAll(t, s)
				if tc.wantErr {
					checkKind(t, s.Err(), tokenpace.KindRequest)
				} else if err := s.Err(); err != nil {
					t.Fatalf("Err() = %v, want nil", err)
				}
				if got := outcomes(s.Timing()); !slices.Equal(got, tc.outcomes) {
					t.Errorf("outcomes = %v, want %v", got, tc.outcomes)
				}
			})
		})
	}
}

// TestContinuation: the primary stalls after 20 tokens; after the 100 ms
// gap budget the call resumes on the small model with the output so far as
// an assistant prefix, and the caller reads one stream with all 40 tokens
// in order.
func TestContinuation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var prompts []string
		big := tokenpace.Route{Name: "big", Model: "big",
			Options: []option.RequestOption{option.WithHeader(simulate.FaultHeader, "stall;for=5s;after=20")}}
		r := router(t, tokenpace.Policy{Budget: tokenpace.Budget{TTFT: time.Second, Gap: 100 * msec}, Continue: true}, []simulate.Option{
			simulate.WithModel("big", &simulate.Fixed{TTFT: 100 * msec, ITL: 20 * msec}),
			simulate.WithModel("small", &simulate.Fixed{TTFT: 50 * msec, ITL: 10 * msec}),
			simulate.WithReply(func(ri simulate.ReplyInfo) (string, bool) {
				if ri.Model == "big" {
					return words(1, 40), true
				}
				prompts = append(prompts, ri.Prompt)
				return words(21, 40), true
			}),
		}, big, route("small"))
		s := r.NewStreaming(context.Background(), chat("big", 40))
		var got []string
		for s.Next() {
			for _, ch := range s.Current().Choices {
				if ch.Delta.Content != "" {
					got = append(got, ch.Delta.Content)
				}
			}
		}
		s.Close()
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v, want nil", err)
		}
		if text, want := s.Accumulated().Choices[0].Message.Content, words(1, 40); text != want {
			t.Errorf("content = %q, want %q", text, want)
		}
		if len(got) != 40 {
			t.Errorf("caller read %d content chunks, want 40", len(got))
		}
		if want := []string{"Continue exactly where your previous message stops. Do not repeat any of it."}; !slices.Equal(prompts, want) {
			t.Errorf("continuation prompts = %q, want %q", prompts, want)
		}
		tm := s.Timing()
		if got, want := outcomes(tm), []tokenpace.Outcome{tokenpace.OutcomeBreached, tokenpace.OutcomeWon}; !slices.Equal(got, want) {
			t.Errorf("outcomes = %v, want %v", got, want)
		}
		if got, want := kinds(tm), []tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptContinuation}; !slices.Equal(got, want) {
			t.Errorf("kinds = %v, want %v", got, want)
		}
		if a, b := tm.Attempts[0], tm.Attempts[1]; a.Tokens != 20 || b.Tokens != 20 {
			t.Errorf("Attempts tokens = %d, %d, want 20, 20", a.Tokens, b.Tokens)
		}
		// Tokens 1-20 from 100 ms every 20 ms; the stall is noticed 100 ms
		// after token 20 (at 580 ms); the small model answers 50 ms later.
		if len(tm.Chunks) != 40 {
			t.Fatalf("len(Chunks) = %d, want 40", len(tm.Chunks))
		}
		if got, want := tm.Chunks[19].Sub(tm.Start), 480*msec; got != want {
			t.Errorf("Chunks[19] at +%v, want +%v", got, want)
		}
		if got, want := tm.Chunks[20].Sub(tm.Start), 630*msec; got != want {
			t.Errorf("Chunks[20] at +%v, want +%v", got, want)
		}
		if got, want := tm.MaxGap(), 150*msec; got != want {
			t.Errorf("MaxGap() = %v, want %v", got, want)
		}
		if tm.OutputTokens != 40 || tm.Target != "small" {
			t.Errorf("OutputTokens, Target = %d, %q, want 40, small", tm.OutputTokens, tm.Target)
		}
		want := []tokenpace.BudgetError{{Target: "big", Phase: tokenpace.PhaseGap, Limit: 100 * msec, Observed: 100 * msec}}
		if !slices.Equal(tm.Breaches, want) {
			t.Errorf("Breaches = %+v, want %+v", tm.Breaches, want)
		}
	})
}

// TestStallWithoutContinuation: without Continue a stall after tokens ends
// the call with the gap breach and the partial output.
func TestStallWithoutContinuation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := router(t, tokenpace.Policy{Budget: tokenpace.Budget{Gap: 100 * msec}}, []simulate.Option{
			simulate.WithModel("big", &simulate.Fixed{TTFT: 100 * msec, ITL: 20 * msec}), replyWords(40),
		}, route("big"), route("small"))
		s := r.NewStreaming(context.Background(), chat("big", 40), option.WithHeader(simulate.FaultHeader, "stall;for=5s;after=20"))
		if text := readAll(t, s); text != words(1, 20) {
			t.Errorf("content = %q, want %q", text, words(1, 20))
		}
		checkBudgetError(t, s.Err(), tokenpace.BudgetError{Target: "big", Phase: tokenpace.PhaseGap, Limit: 100 * msec, Observed: 100 * msec})
		if got, want := outcomes(s.Timing()), []tokenpace.Outcome{tokenpace.OutcomeBreached}; !slices.Equal(got, want) {
			t.Errorf("outcomes = %v, want %v", got, want)
		}
	})
}

// TestHedge: the primary is slow; after 50 ms the small model starts in
// parallel and wins; the primary is cancelled and none of its tokens
// reach the caller.
func TestHedge(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var rec record
		c := simClient(t, []simulate.Option{
			simulate.WithModel("big", &simulate.Fixed{TTFT: 2 * time.Second, ITL: 10 * msec}),
			simulate.WithModel("small", &simulate.Fixed{TTFT: 100 * msec, ITL: 10 * msec}),
			replyByModel(5),
		}, tokenpace.WithHooks(rec.hooks()))
		r, err := tokenpace.NewRouter(c, tokenpace.Policy{Hedge: tokenpace.Hedge{After: 50 * msec}}, route("big"), route("small"))
		if err != nil {
			t.Fatal(err)
		}
		s := r.NewStreaming(context.Background(), chat("big", 5))
		if text, want := readAll(t, s), "S1 S2 S3 S4 S5"; text != want {
			t.Errorf("content = %q, want %q", text, want)
		}
		tm := s.Timing()
		if got, want := tm.UserTTFT(), 150*msec; got != want {
			t.Errorf("UserTTFT() = %v, want %v", got, want)
		}
		if got, want := outcomes(tm), []tokenpace.Outcome{tokenpace.OutcomeHedgeLost, tokenpace.OutcomeWon}; !slices.Equal(got, want) {
			t.Errorf("outcomes = %v, want %v", got, want)
		}
		if got, want := kinds(tm), []tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptHedge}; !slices.Equal(got, want) {
			t.Errorf("kinds = %v, want %v", got, want)
		}
		if got := tm.Attempts[0].End.Sub(tm.Start); got != 150*msec {
			t.Errorf("loser ended at +%v, want +150ms (at once)", got)
		}
		if len(tm.Breaches) != 0 || !tm.OK() {
			t.Errorf("Breaches = %v, OK() = %v, want none and true", tm.Breaches, tm.OK())
		}
		if len(rec.done) != 1 {
			t.Errorf("Done called %d times, want 1", len(rec.done))
		}
	})
}

// TestHedgeNeverDeliversLoserTokens races two routes whose first tokens
// arrive at the same instant, many times: whichever wins, every chunk the
// caller reads is the winner's and exactly one attempt won.
func TestHedgeNeverDeliversLoserTokens(t *testing.T) {
	for i := range 20 {
		synctest.Test(t, func(t *testing.T) {
			r := router(t, tokenpace.Policy{Hedge: tokenpace.Hedge{After: 40 * msec}}, []simulate.Option{
				simulate.WithModel("big", &simulate.Fixed{TTFT: 100 * msec, ITL: 5 * msec}),
				simulate.WithModel("small", &simulate.Fixed{TTFT: 60 * msec, ITL: 5 * msec}),
				replyByModel(8),
			}, route("big"), route("small"))
			s := r.NewStreaming(context.Background(), chat("big", 8))
			var models []string
			for s.Next() {
				models = append(models, s.Current().Model)
			}
			s.Close()
			tm := s.Timing()
			won := 0
			for _, a := range tm.Attempts {
				if a.Outcome == tokenpace.OutcomeWon {
					won++
				}
			}
			if won != 1 {
				t.Fatalf("run %d: %d attempts won, want 1 (%v)", i, won, outcomes(tm))
			}
			for _, m := range models {
				if m != tm.Target {
					t.Fatalf("run %d: caller read a chunk of %q, winner %q", i, m, tm.Target)
				}
			}
			want := "B1 B2 B3 B4 B5 B6 B7 B8"
			if tm.Target == "small" {
				want = "S1 S2 S3 S4 S5 S6 S7 S8"
			}
			if got := s.Accumulated().Choices[0].Message.Content; got != want {
				t.Fatalf("run %d: content = %q, want %q", i, got, want)
			}
		})
	}
}

// TestCancelStopsEveryAttempt: the caller cancels while a hedged pair
// runs; every attempt stops at once, the stream reports the context error
// unchanged, and nothing leaks (the bubble and goleak check).
func TestCancelStopsEveryAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := router(t, tokenpace.Policy{Hedge: tokenpace.Hedge{After: 50 * msec}, Budget: tokenpace.Budget{TTFT: time.Second}}, []simulate.Option{
			simulate.WithModel("big", &simulate.Fixed{TTFT: 2 * time.Second}),
			simulate.WithModel("small", &simulate.Fixed{TTFT: 2 * time.Second}),
		}, route("big"), route("small"))
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(80*msec, cancel)
		start := time.Now()
		s := r.NewStreaming(ctx, chat("big", 5))
		readAll(t, s)
		if got := time.Since(start); got != 80*msec {
			t.Errorf("stream ended after %v, want 80ms", got)
		}
		if err := s.Err(); !errors.Is(err, context.Canceled) || err != context.Canceled {
			t.Errorf("Err() = %v, want context.Canceled unchanged", err)
		}
		tm := s.Timing()
		if got, want := outcomes(tm), []tokenpace.Outcome{tokenpace.OutcomeCanceled, tokenpace.OutcomeCanceled}; !slices.Equal(got, want) {
			t.Errorf("outcomes = %v, want %v", got, want)
		}
		for i, a := range tm.Attempts {
			if a.End.Sub(start) != 80*msec {
				t.Errorf("Attempts[%d] ended at +%v, want +80ms", i, a.End.Sub(start))
			}
		}
		if len(tm.Breaches) != 0 {
			t.Errorf("Breaches = %v, want none", tm.Breaches)
		}
	})
}

// TestCloseMidStream: Close stops the running attempt; Err stays nil and
// Timing records ErrStreamClosed.
func TestCloseMidStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := router(t, tokenpace.Policy{Budget: tokenpace.Budget{Gap: time.Second}}, []simulate.Option{
			simulate.WithModel("big", &simulate.Fixed{TTFT: 100 * msec, ITL: 100 * msec}),
		}, route("big"))
		s := r.NewStreaming(context.Background(), chat("big", 50))
		for range 3 {
			if !s.Next() {
				t.Fatalf("Next() = false, want a chunk")
			}
		}
		s.Close()
		if s.Next() {
			t.Errorf("Next() after Close = true, want false")
		}
		if err := s.Err(); err != nil {
			t.Errorf("Err() = %v, want nil after Close", err)
		}
		tm := s.Timing()
		if !errors.Is(tm.Err, tokenpace.ErrStreamClosed) {
			t.Errorf("Timing.Err = %v, want ErrStreamClosed", tm.Err)
		}
		if got, want := outcomes(tm), []tokenpace.Outcome{tokenpace.OutcomeCanceled}; !slices.Equal(got, want) {
			t.Errorf("outcomes = %v, want %v", got, want)
		}
	})
}

// TestContinuedCallTokenCounts checks a continued call's token counts:
// OutputTokens counts the whole output the caller read, the broken
// attempt's by its deltas, so UsageReported is false; PromptTokens is the
// last request's, as its server reported it.
func TestContinuedCallTokenCounts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := stallingRouter(t, 5, simulate.Fixed{TTFT: 20 * msec, ITL: 5 * msec}, simulate.Fixed{TTFT: 20 * msec, ITL: 5 * msec}, replyWords(8))
		s := r.NewStreaming(context.Background(), chat("big", 8))
		readAll(t, s)
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v, want nil", err)
		}
		tm := s.Timing()
		if got := kinds(tm); !slices.Equal(got, []tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptContinuation}) {
			t.Fatalf("kinds = %v, want first, continuation", got)
		}
		if tm.OutputTokens != 8 || tm.UsageReported {
			t.Errorf("OutputTokens, UsageReported = %d, %v, want 8, false (5 counted by the client, 3 by the server)", tm.OutputTokens, tm.UsageReported)
		}
		last := s.Accumulated().Usage // the continuation's usage chunk
		if tm.PromptTokens == 0 || int64(tm.PromptTokens) != last.PromptTokens {
			t.Errorf("PromptTokens = %d, want the continuation's reported %d", tm.PromptTokens, last.PromptTokens)
		}
	})
}

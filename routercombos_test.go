package tokenpace_test

// Policies of a Router together: several choices, probation, hedging,
// FailFast, an E2E budget and continuation, each with the others.

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/sony/gobreaker/v2"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

func choiceChunk(idx int, content, finish string) string {
	f := "null"
	if finish != "" {
		f = `"` + finish + `"`
	}
	return `{"index":` + string(rune('0'+idx)) + `,"delta":{"content":"` + content + `"},"finish_reason":` + f + `}`
}

// TestRouterComboNChoicesContinue: with n = 2, a stream that stalls was
// continued with the first choice's text alone as the assistant prefix,
// and n = 2: the caller's second choice became a continuation of the
// first's text, with a nil error. A continuation carries one choice: an
// answer of several restarts instead.
func TestRouterComboNChoicesContinue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hdr := map[string]string{"Content-Type": "text/event-stream"}
		first := recording{Status: 200, HeadersMS: 5, Headers: hdr, Reads: []recordedRead{
			{TMS: 20, Data: event(choiceChunk(0, "Apples are", ""))},
			{TMS: 25, Data: event(choiceChunk(1, "Bananas are", ""))},
			{TMS: 2000, Data: event(choiceChunk(0, " red.", "stop") + "," + choiceChunk(1, " yellow.", "stop"))},
			{TMS: 2001, Data: "data: [DONE]\n\n"},
		}}
		cont := recording{Status: 200, HeadersMS: 5, Headers: hdr, Reads: []recordedRead{
			{TMS: 20, Data: event(choiceChunk(0, " red.", "stop"))},
			{TMS: 25, Data: event(choiceChunk(1, " often red.", "stop"))},
			{TMS: 30, Data: "data: [DONE]\n\n"},
		}}
		r, bodies := servingRouter(t, tokenpace.Policy{Budget: tokenpace.Budget{Gap: 100 * msec}, Continue: true}, first, cont)
		p := chat("m", 100)
		p.N = openai.Int(2)
		s := r.NewStreaming(context.Background(), p)
		for s.Next() {
		}
		acc := s.Accumulated()
		var texts []string
		for _, ch := range acc.Choices {
			texts = append(texts, ch.Message.Content)
		}
		if k := kinds(s.Timing()); s.Err() != nil || !slices.Equal(k, []tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptRestart}) {
			t.Fatalf("Err() = %v, kinds %v; want a restart", s.Err(), k)
		}
		if !slices.Equal(texts, []string{" red.", " often red."}) || strings.Contains((*bodies)[1], `"role":"assistant"`) {
			t.Errorf("choices %q after a request %s; want the second route's answers to the original request", texts, (*bodies)[1])
		}
	})
}

// TestRouterComboProbationValidator: a stream that ended while held on
// probation was validated on the chain's text, empty (the held try is not
// chained yet): a valid answer was rejected, its route charged, and the
// call retried elsewhere. It is validated on its own text.
func TestRouterComboProbationValidator(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var seen []string
		pol := tokenpace.Policy{Probation: tokenpace.Probation{Tokens: 100},
			Validator: func(s string) error {
				seen = append(seen, s)
				if !strings.HasPrefix(s, "w1") {
					return errors.New("no w1")
				}
				return nil
			}}
		r := router(t, pol, []simulate.Option{
			simulate.WithModel("big", &simulate.Fixed{TTFT: 50 * msec, ITL: 10 * msec}),
			simulate.WithModel("small", &simulate.Fixed{TTFT: 50 * msec, ITL: 10 * msec}),
			replyWords(4),
		}, route("big"), route("small"))
		s := r.NewStreaming(context.Background(), chat("m", 100))
		text := readAll(t, s)
		tm := s.Timing()
		if want := []tokenpace.Outcome{tokenpace.OutcomeWon}; !slices.Equal(outcomes(tm), want) || s.Err() != nil || text != "w1 w2 w3 w4" {
			t.Errorf("outcomes = %v, Err() = %v, text %q; want %v, nil, the first route's (validator saw %q)", outcomes(tm), s.Err(), text, want, seen)
		}
	})
}

// TestRouterComboE2EContinue: once the call's E2E budget is spent, a
// continuation cannot meet it: each next route was sent a request cut at
// once and charged with a breach on its breaker (after five calls, the
// healthy routes' breakers were open). They are skipped now, and the call
// ends with the breach that spent the budget.
func TestRouterComboE2EContinue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := router(t, tokenpace.Policy{Budget: tokenpace.Budget{E2E: 300 * msec}, Continue: true}, []simulate.Option{
			simulate.WithModel("big", &simulate.Fixed{TTFT: 50 * msec, ITL: 100 * msec}),
			simulate.WithModel("small", &simulate.Fixed{TTFT: 50 * msec, ITL: 10 * msec}),
			simulate.WithModel("third", &simulate.Fixed{TTFT: 50 * msec, ITL: 10 * msec}),
			replyWords(20),
		}, route("big"), route("small"), route("third"))
		for range 5 {
			s := r.NewStreaming(context.Background(), chat("m", 100))
			readAll(t, s)
			var be *tokenpace.BudgetError
			if !errors.As(s.Err(), &be) || be.Target != "big" || be.Phase != tokenpace.PhaseE2E {
				t.Fatalf("Err() = %v, want big's E2E breach", s.Err())
			}
		}
		st, _ := r.BreakerState("small")
		st3, _ := r.BreakerState("third")
		if st.String() != "closed" || st3.String() != "closed" {
			t.Errorf("breakers of small, third = %v, %v; want closed: they never got a chance", st, st3)
		}
	})
}

// TestRouterComboContinuationStallsBeforeFirstToken: a continuation whose
// route stalls before its first token: TTFT bounds that wait (Gap does
// not: a continuation prefills a longer prompt, and a Gap budget alone
// left the caller waiting 30 s, with a nil error), and the next route
// carries the output on.
func TestRouterComboContinuationStallsBeforeFirstToken(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		big := route("big")
		big.Options = []option.RequestOption{withFault("stall;for=5s;after=2")}
		small := route("small")
		small.Options = []option.RequestOption{withFault("stall;for=30s;after=0")}
		r := router(t, tokenpace.Policy{Budget: tokenpace.Budget{TTFT: 200 * msec, Gap: 100 * msec}, Continue: true}, []simulate.Option{
			simulate.WithModel("big", &simulate.Fixed{TTFT: 50 * msec, ITL: 10 * msec}),
			simulate.WithModel("small", &simulate.Fixed{TTFT: 50 * msec, ITL: 10 * msec}),
			simulate.WithModel("third", &simulate.Fixed{TTFT: 50 * msec, ITL: 10 * msec}),
			replyWords(6),
		}, big, small, route("third"))
		start := time.Now()
		s := r.NewStreaming(context.Background(), chat("m", 100))
		readAll(t, s)
		tm := s.Timing()
		want := []tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptContinuation, tokenpace.AttemptContinuation}
		if took := time.Since(start); s.Err() != nil || took > time.Second || !slices.Equal(kinds(tm), want) {
			t.Errorf("Err() = %v after %v, kinds %v; want nil within a second, %v", s.Err(), took, kinds(tm), want)
		}
	})
}

// TestRouterComboFailFastNewHedge: under FailFast, after the first breach
// (while a hedge runs), the hedge timer launched another route, which
// answered: FailFast promises that no other route is tried.
func TestRouterComboFailFastNewHedge(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := router(t, tokenpace.Policy{FailFast: true, Budget: tokenpace.Budget{TTFT: 150 * msec},
			Hedge: tokenpace.Hedge{After: 100 * msec, Max: 2}}, []simulate.Option{
			simulate.WithModel("a", &simulate.Fixed{TTFT: time.Second, ITL: 10 * msec}),
			simulate.WithModel("b", &simulate.Fixed{TTFT: time.Second, ITL: 10 * msec}),
			simulate.WithModel("c", &simulate.Fixed{TTFT: 20 * msec, ITL: 10 * msec}),
			replyWords(4),
		}, route("a"), route("b"), route("c"))
		s := r.NewStreaming(context.Background(), chat("m", 100))
		text := readAll(t, s)
		var be *tokenpace.BudgetError
		if !errors.As(s.Err(), &be) || be.Target != "a" || text != "" || len(s.Timing().Attempts) != 2 {
			t.Errorf("Err() = %v, text %q, %d attempts; want a's breach, no text, a and its hedge b alone", s.Err(), text, len(s.Timing().Attempts))
		}
	})
}

// TestRouterComboProbationTokensMinTPS: Probation.Tokens paired with
// MinTPS, as the documentation advises: a slow stream was committed before
// MinTPS was ever checked (Warmup 8 > Tokens 5), and broke in the caller's
// sight. MinTPS is now checked by the commit, and the fallback is
// invisible.
func TestRouterComboProbationTokensMinTPS(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := router(t, tokenpace.Policy{Budget: tokenpace.Budget{MinTPS: 20}, Probation: tokenpace.Probation{Tokens: 5}}, []simulate.Option{
			simulate.WithModel("big", &simulate.Fixed{TTFT: 50 * msec, ITL: 200 * msec}),
			simulate.WithModel("small", &simulate.Fixed{TTFT: 50 * msec, ITL: 10 * msec}),
			replyByModel(20),
		}, route("big"), route("small"))
		s := r.NewStreaming(context.Background(), chat("m", 100))
		text := readAll(t, s)
		if s.Err() != nil || strings.Contains(text, "B1") || !slices.Equal(outcomes(s.Timing()), []tokenpace.Outcome{tokenpace.OutcomeBreached, tokenpace.OutcomeWon}) {
			t.Errorf("Err() = %v, text %q, outcomes %v; want the second route's answer alone", s.Err(), text, outcomes(s.Timing()))
		}
	})
}

// TestRouterComboContinueOnOpenBreaker: a stream breaches its Gap budget with
// Continue set, and the route to continue on is skipped (its breaker is
// open): the call ended with the skipped route's error, not the breach
// that broke the caller's output.
func TestRouterComboContinueOnOpenBreaker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		big := route("big")
		big.Options = []option.RequestOption{withFault("stall;for=5s;after=2")}
		small := route("small")
		small.Breaker = openBreakerStub{}
		r := router(t, tokenpace.Policy{Budget: tokenpace.Budget{Gap: 100 * msec}, Continue: true}, []simulate.Option{
			simulate.WithModel("big", &simulate.Fixed{TTFT: 50 * msec, ITL: 10 * msec}),
			simulate.WithModel("small", &simulate.Fixed{TTFT: 50 * msec, ITL: 10 * msec}),
			replyWords(6),
		}, big, small)
		s := r.NewStreaming(context.Background(), chat("m", 100))
		text := readAll(t, s)
		if !errors.Is(s.Err(), tokenpace.ErrBudgetExceeded) || text != "w1 w2" {
			t.Errorf("Err() = %v, text %q; want the Gap breach that ended the stream, the text before it", s.Err(), text)
		}
	})
}

// TestRouterComboE2EFallback: once the call's E2E budget is spent (here
// before any token), the routes left are skipped, not sent: before, each
// was sent a request cut at once and charged a breach, and the call ended
// with the last one's instead of the breach that spent the budget.
func TestRouterComboE2EFallback(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := router(t, tokenpace.Policy{Budget: tokenpace.Budget{E2E: 300 * msec}}, []simulate.Option{
			simulate.WithModel("big", &simulate.Fixed{TTFT: time.Second, ITL: 10 * msec}),
			simulate.WithModel("small", &simulate.Fixed{TTFT: 50 * msec, ITL: 10 * msec}),
			simulate.WithModel("third", &simulate.Fixed{TTFT: 50 * msec, ITL: 10 * msec}),
			replyWords(5),
		}, route("big"), route("small"), route("third"))
		s := r.NewStreaming(context.Background(), chat("m", 100))
		readAll(t, s)
		tm := s.Timing()
		want := []tokenpace.Outcome{tokenpace.OutcomeBreached, tokenpace.OutcomeSkipped, tokenpace.OutcomeSkipped}
		var be *tokenpace.BudgetError
		if !slices.Equal(outcomes(tm), want) || !errors.As(s.Err(), &be) || be.Target != "big" || be.Phase != tokenpace.PhaseE2E {
			t.Errorf("outcomes %v, Err() = %v; want %v and big's E2E breach", outcomes(tm), s.Err(), want)
		}
		for _, name := range []string{"small", "third"} {
			if st, _ := r.BreakerState(name); st != gobreaker.StateClosed {
				t.Errorf("BreakerState(%s) = %v, want closed", name, st)
			}
		}
	})
}

type openBreakerStub struct{}

func (openBreakerStub) Allow() (func(error), error) { return nil, errors.New("open") }
func (openBreakerStub) State() gobreaker.State      { return gobreaker.StateOpen }

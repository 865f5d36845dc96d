package tokenpace_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// switchable returns a model whose TTFT is read from ttft at each request,
// 10 ms between tokens.
func switchable(ttft *atomic.Int64) *simulate.Fixed {
	return &simulate.Fixed{ITL: 10 * msec, PerRequest: func(simulate.Request) (time.Duration, time.Duration) {
		return time.Duration(ttft.Load()), 0
	}}
}

// affinityRouter returns a Router over routes "a" then "b" whose TTFTs the
// test sets, with a TTFT budget of 150 ms and affinity aff.
func affinityRouter(t *testing.T, aff tokenpace.Affinity, ttA, ttB *atomic.Int64) *tokenpace.Router {
	t.Helper()
	return router(t, tokenpace.Policy{Budget: tokenpace.Budget{TTFT: 150 * msec}, Affinity: aff}, []simulate.Option{
		simulate.WithModel("a", switchable(ttA)), simulate.WithModel("b", switchable(ttB)), replyWords(3),
	}, route("a"), route("b"))
}

// sessionCall makes a call of session under r with params and checks what
// the caller sees: the text of the scripted reply, no error, its TTFT and
// the route that answered.
func sessionCall(t *testing.T, r *tokenpace.Router, session string, params openai.ChatCompletionNewParams, wantTTFT time.Duration, wantTarget string) *tokenpace.Timing {
	t.Helper()
	ctx := context.Background()
	if session != "" {
		ctx = tokenpace.ContextWithCallPolicy(ctx, tokenpace.CallPolicy{Session: session})
	}
	s := r.NewStreaming(ctx, params)
	if got, want := readAll(t, s), words(1, 3); got != want {
		t.Errorf("session %q: content = %q, want %q", session, got, want)
	}
	if err := s.Err(); err != nil {
		t.Fatalf("session %q: Err() = %v, want nil", session, err)
	}
	tm := s.Timing()
	if tm.TTFT() != wantTTFT || tm.Target != wantTarget {
		t.Errorf("session %q: TTFT %v on %q, want %v on %q (attempts %+v)", session, tm.TTFT(), tm.Target, wantTTFT, wantTarget, tm.Attempts)
	}
	return tm
}

// TestAffinityStaysAndMoves: a session moved to route b by a breach stays
// there while b meets its budget, other sessions keep the Router's order,
// and the session moves back to a when b breaches.
func TestAffinityStaysAndMoves(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var ttA, ttB atomic.Int64
		ttA.Store(int64(300 * msec))
		ttB.Store(int64(50 * msec))
		r := affinityRouter(t, tokenpace.Affinity{}, &ttA, &ttB)
		params := chat("a", 3)

		// a is slow: the call falls back to b at 150 ms.
		tm := sessionCall(t, r, "u1", params, 200*msec, "b")
		if tm.Attempts[0].Affinity || tm.Attempts[1].Affinity {
			t.Errorf("first call: Affinity set on %+v, want none (no session route yet)", tm.Attempts)
		}
		// a is fast again, but u1 stays on b: one attempt, at b.
		ttA.Store(int64(40 * msec))
		tm = sessionCall(t, r, "u1", params, 50*msec, "b")
		if len(tm.Attempts) != 1 || !tm.Attempts[0].Affinity || tm.Attempts[0].Kind != tokenpace.AttemptFirst {
			t.Errorf("second call of u1: attempts %+v, want one first attempt at b with Affinity", tm.Attempts)
		}
		// Another session, and a call without one, keep the Router's order.
		sessionCall(t, r, "u2", params, 40*msec, "a")
		sessionCall(t, r, "", params, 40*msec, "a")
		// b breaches: u1 falls back to a and stays there.
		ttB.Store(int64(300 * msec))
		tm = sessionCall(t, r, "u1", params, 190*msec, "a")
		if got, want := outcomes(tm), []tokenpace.Outcome{tokenpace.OutcomeBreached, tokenpace.OutcomeWon}; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
			t.Errorf("u1 after b breached: outcomes %v, want %v", got, want)
		}
		ttB.Store(int64(20 * msec))
		sessionCall(t, r, "u1", params, 40*msec, "a")
	})
}

// TestAffinityByPrefix: without a session named, calls whose prompts share
// their first PrefixTokens tokens share a route; a different document
// keeps the Router's order.
func TestAffinityByPrefix(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var ttA, ttB atomic.Int64
		ttA.Store(int64(300 * msec))
		ttB.Store(int64(50 * msec))
		r := affinityRouter(t, tokenpace.Affinity{PrefixTokens: 64}, &ttA, &ttB)
		doc := func(name, question string) openai.ChatCompletionNewParams {
			p := chat("a", 3)
			p.Messages = []openai.ChatCompletionMessageParamUnion{
				openai.SystemMessage(strings.Repeat(name+" ", 100)),
				openai.UserMessage(question),
			}
			return p
		}
		sessionCall(t, r, "", doc("alpha", "What is it?"), 200*msec, "b")
		ttA.Store(int64(40 * msec))
		tm := sessionCall(t, r, "", doc("alpha", "And why?"), 50*msec, "b")
		if !tm.Attempts[0].Affinity {
			t.Errorf("same document: attempts %+v, want the first with Affinity", tm.Attempts)
		}
		sessionCall(t, r, "", doc("beta", "What is it?"), 40*msec, "a")
	})
}

// TestAffinityForgetsFailedSession: a session whose call fails on every
// route goes back to the Router's order; one the caller closes keeps its
// route.
func TestAffinityForgetsFailedSession(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var ttA, ttB atomic.Int64
		ttA.Store(int64(300 * msec))
		ttB.Store(int64(50 * msec))
		r := affinityRouter(t, tokenpace.Affinity{}, &ttA, &ttB)
		params := chat("a", 3)
		sessionCall(t, r, "u1", params, 200*msec, "b")

		// Closed before its end: u1 keeps b.
		ctx := tokenpace.ContextWithCallPolicy(context.Background(), tokenpace.CallPolicy{Session: "u1"})
		s := r.NewStreaming(ctx, params)
		s.Next()
		s.Close()
		if tm := s.Timing(); tm.Target != "b" {
			t.Errorf("closed call: target %q, want b", tm.Target)
		}
		// Both routes breach: the call fails and u1 forgets b.
		ttB.Store(int64(300 * msec))
		s = r.NewStreaming(ctx, params)
		readAll(t, s)
		if s.Err() == nil {
			t.Fatalf("Err() = nil, want a breach")
		}
		ttA.Store(int64(40 * msec))
		ttB.Store(int64(20 * msec))
		tm := sessionCall(t, r, "u1", params, 40*msec, "a")
		if tm.Attempts[0].Affinity {
			t.Errorf("after a failed call: attempts %+v, want no Affinity", tm.Attempts)
		}
	})
}

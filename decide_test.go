package tokenpace

import (
	"context"
	"errors"
	"testing"
)

func TestClassify(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		e    tryEvent
		want happening
	}{
		{tryEvent{breach: true}, happenedBreach},
		{tryEvent{breach: true, chained: true}, happenedBreach},
		{tryEvent{cause: boom, outcome: OutcomeBreached}, happenedBreachedEnd},
		{tryEvent{cause: errHedgeLost, outcome: OutcomeHedgeLost, err: errHedgeLost}, happenedNothing},
		{tryEvent{cause: errCallEnded, outcome: OutcomeCanceled, chained: true}, happenedNothing},
		{tryEvent{chained: true}, happenedClean},
		{tryEvent{buffered: true}, happenedClean},
		{tryEvent{chained: true, err: boom}, happenedBroke},
		{tryEvent{err: boom}, happenedEarly},
		{tryEvent{buffered: true, err: boom}, happenedEarly},
		{tryEvent{}, happenedEarly}, // clean, but no output
		{tryEvent{first: true}, happenedFirst},
		{tryEvent{first: true, stale: true}, happenedNothing}, // stopped, or the call ended
		{tryEvent{hedge: true}, happenedHedge},
		{tryEvent{hedge: true, stale: true}, happenedNothing}, // the call ended, or the timer was re-armed
		{tryEvent{breach: true, stale: true}, happenedNothing},
	}
	for _, tt := range tests {
		if got := classify(tt.e); got != tt.want {
			t.Errorf("classify(%+v) = %v, want %v", tt.e, got, tt.want)
		}
	}
}

func TestDecide(t *testing.T) {
	tests := []struct {
		h    happening
		s    situation
		want decision
	}{
		{happenedNothing, situation{}, decideWait},
		{happenedClean, situation{chained: true}, decideFinish},
		{happenedClean, situation{chained: true, invalid: true, routesLeft: true}, decideFinish},
		{happenedClean, situation{buffered: true}, decideDeliver},
		{happenedClean, situation{buffered: true, invalid: true}, decideDeliver},
		{happenedClean, situation{buffered: true, invalid: true, routesLeft: true}, decideRetry},
		{happenedClean, situation{buffered: true, invalid: true, routesLeft: true, canceled: true}, decideDeliver},
		{happenedBroke, situation{chained: true}, decideFinish},
		{happenedBroke, situation{chained: true, cont: true}, decideContinue},
		{happenedBroke, situation{chained: true, cont: true, failFast: true}, decideFinish},
		{happenedBroke, situation{chained: true, cont: true, canceled: true}, decideFinish},
		{happenedBroke, situation{chained: true, restartOnly: true}, decideFinish},
		{happenedBroke, situation{chained: true, cont: true, restartOnly: true}, decideRestart},
		{happenedBroke, situation{chained: true, cont: true, restartOnly: true, failFast: true}, decideFinish},
		{happenedEarly, situation{}, decideFallback},
		{happenedEarly, situation{live: 1}, decideWait},
		{happenedEarly, situation{canceled: true}, decideCanceled},
		{happenedEarly, situation{delivered: true}, decideContinue},
		{happenedEarly, situation{retryFits: true}, decideRetryRoute},
		{happenedEarly, situation{retryFits: true, live: 1}, decideWait},
		{happenedEarly, situation{retryFits: true, delivered: true}, decideContinue},
		{happenedEarly, situation{delivered: true, restartOnly: true}, decideRestart},
		{happenedBreach, situation{}, decideFallback},
		{happenedBreach, situation{live: 1}, decideWait},
		{happenedBreach, situation{failFast: true}, decideFinish},
		{happenedBreach, situation{failFast: true, live: 1}, decideWait},
		{happenedBreach, situation{chained: true}, decideFinish},
		{happenedBreach, situation{chained: true, cont: true}, decideContinue},
		{happenedBreach, situation{chained: true, cont: true, failFast: true}, decideFinish},
		{happenedBreach, situation{chained: true, cont: true, restartOnly: true}, decideRestart},
		{happenedBreach, situation{chained: true, restartOnly: true}, decideFinish},
		{happenedBreach, situation{delivered: true}, decideContinue},
		{happenedBreachedEnd, situation{}, decideFallback},
		{happenedBreachedEnd, situation{live: 1}, decideWait},
		{happenedBreachedEnd, situation{won: true}, decideWait},
		{happenedEarly, situation{failFast: true, failedFast: true}, decideFinish},
		{happenedEarly, situation{failFast: true, failedFast: true, live: 1}, decideWait},
		{happenedEarly, situation{failFast: true, failedFast: true, canceled: true}, decideCanceled},
		{happenedBreachedEnd, situation{failFast: true, failedFast: true}, decideFinish},
		{happenedBreachedEnd, situation{failFast: true, failedFast: true, live: 1}, decideWait},
		{happenedBroke, situation{chained: true, cont: true, resumable: true}, decideResume},
		{happenedBroke, situation{chained: true, cont: true, resumable: true, restartOnly: true}, decideResume},
		{happenedBroke, situation{chained: true, resumable: true}, decideFinish},
		{happenedBreach, situation{chained: true, cont: true, resumable: true}, decideResume},
		{happenedEarly, situation{delivered: true, resumable: true}, decideResume},
		{happenedEarly, situation{resumedEnd: true}, decideDeliver},
		{happenedFirst, situation{}, decideWin},
		{happenedFirst, situation{won: true}, decideLose},
		{happenedFirst, situation{carries: true}, decideJoin},
		{happenedFirst, situation{carries: true, won: true}, decideJoin},
		{happenedHedge, situation{}, decideHedge},
		{happenedHedge, situation{won: true}, decideWait},
		{happenedHedge, situation{canceled: true}, decideWait},
		{happenedHedge, situation{failFast: true, failedFast: true}, decideWait},
		{happenedHedge, situation{live: 1}, decideHedge},
	}
	for _, tt := range tests {
		if got := decide(tt.h, tt.s); got != tt.want {
			t.Errorf("decide(%v, %+v) = %v, want %v", tt.h, tt.s, got, tt.want)
		}
	}
}

func TestEndOutcome(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		err, cause error
		want       Outcome
	}{
		{nil, nil, OutcomeWon},
		{boom, nil, OutcomeFailed},
		{ErrSuperseded, ErrSuperseded, OutcomeSuperseded},
		{context.Canceled, context.Canceled, OutcomeCanceled},
		{ErrStreamClosed, nil, OutcomeCanceled},
		{errCallEnded, nil, OutcomeCanceled},
	}
	for _, tt := range tests {
		if got := endOutcome(tt.err, tt.cause); got != tt.want {
			t.Errorf("endOutcome(%v, %v) = %v, want %v", tt.err, tt.cause, got, tt.want)
		}
	}
}

// TestEnumNames checks that every happening and decision has its own name,
// so that a test's message names the value it means.
func TestEnumNames(t *testing.T) {
	if got := happenedBreachedEnd.String(); got != "breached-end" {
		t.Errorf("happenedBreachedEnd.String() = %q, want %q", got, "breached-end")
	}
	if got := decideRestart.String(); got != "restart" {
		t.Errorf("decideRestart.String() = %q, want %q", got, "restart")
	}
	if got := decideRetryRoute.String(); got != "retry-route" {
		t.Errorf("decideRetryRoute.String() = %q, want %q", got, "retry-route")
	}
}

// TestPlanFor checks the state a plan changes around its decision.
func TestPlanFor(t *testing.T) {
	breach, first, broke := errors.New("breach"), errors.New("first breach"), errors.New("broke")
	budgetErr := &BudgetError{Phase: PhaseTTFT}
	tests := []struct {
		name       string
		h          happening
		s          situation
		err        error
		failedFast error
		want       plan
	}{
		{name: "empty answer", h: happenedEarly, s: situation{routesLeft: true},
			want: plan{decision: decideFallback, empty: true, lastErr: true, launch: AttemptFallback}},
		{name: "winner failed before delivering", h: happenedEarly, s: situation{won: true, winner: true}, err: broke,
			want: plan{decision: decideFallback, err: broke, unwin: true, lastErr: true, launch: AttemptFallback}},
		{name: "first breach under FailFast, another try runs", h: happenedBreach, s: situation{failFast: true, live: 1}, err: breach,
			want: plan{decision: decideWait, err: breach, failedFast: breach, lastErr: true}},
		{name: "later failure under FailFast ends with the first breach", h: happenedEarly, s: situation{failFast: true, failedFast: true},
			err: broke, failedFast: first, want: plan{decision: decideFinish, err: first, lastErr: true}},
		{name: "clean end keeps the last error", h: happenedClean, s: situation{chained: true},
			want: plan{decision: decideFinish}},
		{name: "breached end while another runs", h: happenedBreachedEnd, s: situation{live: 1}, err: breach,
			want: plan{decision: decideWait, err: breach}},
		{name: "a breach is recorded", h: happenedBreach, s: situation{live: 1}, err: budgetErr,
			want: plan{decision: decideWait, err: budgetErr, lastErr: true, breach: budgetErr}},
		{name: "first token wins, changing no error", h: happenedFirst, s: situation{}, failedFast: first,
			want: plan{decision: decideWin}},
		{name: "first token of a hedge that lost", h: happenedFirst, s: situation{won: true, winner: false},
			want: plan{decision: decideLose}},
		{name: "the hedge timer changes no winner nor error", h: happenedHedge, s: situation{won: false, winner: true},
			want: plan{decision: decideHedge, launch: AttemptHedge}},
		{name: "a rejected output wins no more", h: happenedClean, s: situation{buffered: true, invalid: true, routesLeft: true, won: true, winner: true}, err: broke,
			want: plan{decision: decideRetry, err: broke, unwin: true, lastErr: true, launch: AttemptFallback}},
		{name: "a broken output is continued", h: happenedBroke, s: situation{chained: true, cont: true, delivered: true}, err: broke,
			want: plan{decision: decideContinue, err: broke, lastErr: true, launch: AttemptContinuation}},
	}
	for _, tt := range tests {
		if got := planFor(tt.h, tt.s, tt.err, tt.failedFast); got != tt.want {
			t.Errorf("%s: planFor(%v, %+v) = %+v, want %+v", tt.name, tt.h, tt.s, got, tt.want)
		}
	}
}

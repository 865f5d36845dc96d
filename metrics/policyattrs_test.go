package metrics

import (
	"context"
	"testing"
	"time"

	"github.com/tokenpace/tokenpace"
)

// TestOTelPolicyAttributes: a call sent first to its session's route has
// tokenpace.affinity on its span and on that attempt's span only; an
// attempt held back by its server's limits, tokenpace.admission; one held
// on probation, tokenpace.probation.
func TestOTelPolicyAttributes(t *testing.T) {
	rig := newRig(t)
	ms := func(n int) time.Time { return epoch.Add(time.Duration(n) * time.Millisecond) }
	tm := stream(t, "a", "m", epoch, 0, 200*time.Millisecond, 10*time.Millisecond, 3)
	tm.Attempts = []tokenpace.Attempt{
		{Target: "b", Model: "m", Start: ms(0), End: ms(150), Outcome: tokenpace.OutcomeBreached, Affinity: true, Admission: "server_limit"},
		{Target: "a", Model: "m", Start: ms(150), FirstToken: ms(200), Committed: ms(450), End: tm.End, Tokens: 3, Outcome: tokenpace.OutcomeWon},
	}
	rig.o.Record(context.Background(), tm)
	got, adm, held := map[string]string{}, map[string]string{}, map[string]string{}
	for _, s := range rig.spans.Ended() {
		name := "call"
		if s.Parent().IsValid() {
			name = spanAttrs(s)["tokenpace.target"]
		}
		got[name] = spanAttrs(s)["tokenpace.affinity"]
		adm[name] = spanAttrs(s)["tokenpace.admission"]
		held[name] = spanAttrs(s)["tokenpace.probation"]
	}
	if held["call"] != "0.25" || held["a"] != "0.25" || held["b"] != "" {
		t.Errorf("tokenpace.probation by span = %v, want call and a 0.25, b unset", held)
	}
	if got["call"] != "true" || got["b"] != "true" || got["a"] != "" {
		t.Errorf("tokenpace.affinity by span = %v, want call and b true, a unset", got)
	}
	if adm["call"] != "server_limit" || adm["b"] != "server_limit" || adm["a"] != "" {
		t.Errorf("tokenpace.admission by span = %v, want call and b server_limit, a unset", adm)
	}
}

package metrics

import (
	"context"
	"testing"
	"time"

	"github.com/tokenpace/tokenpace"
)

// TestOTelSpanResponseIDAndReasoning: the call span has the conventions'
// recommended gen_ai.response.id (the answer to chain a turn on, after a
// continuation the last attempt's) and gen_ai.usage.reasoning.output_tokens;
// each attempt's span has its own response's id. They had neither, so a
// span could not be found from the id a server's logs or a caller hold.
func TestOTelSpanResponseIDAndReasoning(t *testing.T) {
	rig := newRig(t)
	ms := func(n int) time.Time { return epoch.Add(time.Duration(n) * time.Millisecond) }
	tm := stream(t, "b", "m", epoch, 0, 100*time.Millisecond, 10*time.Millisecond, 6)
	tm.ResponseID, tm.ReasoningTokens = "chatcmpl-b", 2
	tm.Attempts = []tokenpace.Attempt{
		{Target: "a", Model: "m", Kind: tokenpace.AttemptFirst, Start: ms(0), FirstToken: ms(100), End: ms(200), Tokens: 3, Outcome: tokenpace.OutcomeBreached, ResponseID: "chatcmpl-a"},
		{Target: "b", Model: "m", Kind: tokenpace.AttemptContinuation, Start: ms(200), FirstToken: ms(250), End: tm.End, Tokens: 3, Outcome: tokenpace.OutcomeWon, ResponseID: "chatcmpl-b"},
	}
	rig.o.Record(context.Background(), tm)
	got := map[string]map[string]string{}
	for _, s := range rig.spans.Ended() {
		a := spanAttrs(s)
		name := "call"
		if s.Parent().IsValid() {
			name = a["tokenpace.target"]
		}
		got[name] = a
	}
	for _, c := range []struct{ span, key, want string }{
		{"call", "gen_ai.response.id", "chatcmpl-b"},
		{"call", "gen_ai.usage.reasoning.output_tokens", "2"},
		{"a", "gen_ai.response.id", "chatcmpl-a"},
		{"b", "gen_ai.response.id", "chatcmpl-b"},
	} {
		if v := got[c.span][c.key]; v != c.want {
			t.Errorf("span %s: %s = %q, want %q", c.span, c.key, v, c.want)
		}
	}
	// No figure where the server reported none.
	rig2 := newRig(t)
	rig2.o.Record(context.Background(), stream(t, "a", "m", epoch, 0, time.Millisecond, time.Millisecond, 2))
	for _, s := range rig2.spans.Ended() {
		for _, k := range []string{"gen_ai.response.id", "gen_ai.usage.reasoning.output_tokens"} {
			if v, ok := spanAttrs(s)[k]; ok {
				t.Errorf("span without id or reasoning: %s = %q, want none", k, v)
			}
		}
	}
}

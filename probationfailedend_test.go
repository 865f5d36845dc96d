package tokenpace_test

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tokenpace/tokenpace"
)

// TestProbationSentenceFailedEndFallsBack: NVIDIA Dynamo's answer cut
// after "Budgets stop slow calls", with no sentence terminator, ends on a
// finish reason that says it was cancelled
// (dynamo-cancelled-stop-detailed-finish.jsonl). Held until its first
// sentence, it never proved healthy: its end completes a sentence only
// for a whole answer, so the call falls back to the second route, whose
// answer alone reaches the caller (before: the end committed the held
// text, and the caller got it with the truncation).
func TestProbationSentenceFailedEndFallsBack(t *testing.T) {
	fx := loadConformance(t)["dynamo-cancelled-stop-detailed-finish"]
	synctest.Test(t, func(t *testing.T) {
		url, hc := serve(t, byModel(map[string]http.Handler{
			fx.Request.Body.Model: replay(fx.recording),
			"second":              http.HandlerFunc(secondRoute),
		}))
		c := tokenpace.NewClient(openaiClient(url, hc))
		r, err := tokenpace.NewRouter(c, tokenpace.Policy{Probation: tokenpace.Probation{Sentence: true}},
			tokenpace.Route{Name: "first", Model: fx.Request.Body.Model}, route("second"))
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		got := readChat(r.NewStreaming(context.Background(), chat(fx.Request.Body.Model, 16)))
		if got.text != extra || got.acc != extra || got.err != nil {
			t.Fatalf("caller got %q (accumulated %q), Err() = %v; want the second route's %q alone", got.text, got.acc, got.err, extra)
		}
		if k := kinds(got.tm); !slices.Equal(k, []tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptFallback}) {
			t.Errorf("attempts %v, want first then fallback", k)
		}
		if ttft := got.tm.TTFT(); ttft != got.received.Sub(start) {
			t.Errorf("TTFT %v, want %v, when the second route's first token reached the caller", ttft, got.received.Sub(start))
		}
	})
}

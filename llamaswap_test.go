package tokenpace_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tokenpace/tokenpace"
)

// TestLlamaSwapLoadingBudget: llama-swap's notes while it loads a model
// (testdata/conformance/llamaswap-loading-notes.jsonl, recorded live:
// the first note 4 ms after the request, the model's first token at
// 2.76 s) are not the answer's first token. A Router whose route has a
// 1 s TTFT budget falls back while the model loads, and the caller gets
// the fallback's text, no note in it, 1 s and the fallback's own first
// token after its request. The notes once counted as that first token:
// the budget never breached, and the caller waited for the load.
func TestLlamaSwapLoadingBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		loading := loadConformance(t)["llamaswap-loading-notes"]
		const fallbackFirst = 40 * time.Millisecond
		url, hc := serve(t, byModel(map[string]http.Handler{
			"tiny": replay(loading.recording),
			"small": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				time.Sleep(fallbackFirst)
				sseBody(chunk("s", "from the loaded model", "stop", "")+"data: [DONE]\n\n").ServeHTTP(w, r)
			}),
		}))
		tiny := route("tiny")
		tiny.Budget = tokenpace.Budget{TTFT: time.Second}
		r, err := tokenpace.NewRouter(tokenpace.NewClient(openaiClient(url, hc)), tokenpace.Policy{}, tiny, route("small"))
		if err != nil {
			t.Fatal(err)
		}
		s := r.NewStreaming(context.Background(), chat("tiny", 20))
		got := readChat(s)
		if got.err != nil || got.text != "from the loaded model" || got.reasoning != "" || strings.Contains(got.accReasoning, "llama-swap") {
			t.Errorf("text %q, reasoning %q, err %v; want the fallback's text, no reasoning, no error", got.text, got.reasoning, got.err)
		}
		if ttft, want := s.Timing().TTFT(), time.Second+fallbackFirst; ttft != want {
			t.Errorf("TTFT %v, want %v: the budget, then the fallback's first token", ttft, want)
		}
		if a := s.Timing().Attempts; len(a) != 2 || a[0].Outcome != tokenpace.OutcomeBreached || a[1].Outcome != tokenpace.OutcomeWon {
			t.Errorf("attempts %+v, want the loading one breached and the fallback won", a)
		}
	})
}

// TestLlamaSwapUpstreamRefusalAfterNotesNotCounted: llama-swap with
// sendLoadingState writes its own 200 headers and loading notes while a
// model loads, then hands the same ResponseWriter to the upstream
// (mostlygeek/llama-swap internal/router/base.go): llama-server's 400 for a
// prompt over the context loses its status and comes as its bare JSON
// body after the notes. The caller must get status 400 with llama-server's
// words, and a breaker must not count it.
func TestLlamaSwapUpstreamRefusalAfterNotesNotCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wantRefusalsNotCounted(t, "llamaswap-loading-then-upstream-400-bare", http.StatusBadRequest, chatErr(t))
	})
}

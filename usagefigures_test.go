package tokenpace_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tokenpace/tokenpace"
)

// chatReads returns a chat stream's reads, one chunk each, of model: the
// deltas at t0, t0+10, … ms, then a finish chunk with usage (when not
// empty) and [DONE]; with stall, no finish: the server goes silent.
func chatReads(model string, deltas []string, usage string, t0 float64, stall bool) recording {
	chunk := func(delta, finish, usage string) string {
		return fmt.Sprintf(`data: {"id":"c-%s","object":"chat.completion.chunk","created":1775595257,"model":%q,"choices":[{"index":0,"delta":%s,"finish_reason":%s}]%s}`+"\n\n",
			model, model, delta, finish, usage)
	}
	rec := recording{Status: 200, HeadersMS: 5, Headers: map[string]string{"Content-Type": "text/event-stream"}}
	at := t0
	for _, d := range deltas {
		rec.Reads = append(rec.Reads, recordedRead{TMS: at, Data: chunk(d, "null", "")})
		at += 10
	}
	if stall {
		rec.Reads = append(rec.Reads, recordedRead{TMS: at + 10000, Data: ""})
		return rec
	}
	if usage != "" {
		usage = `,"usage":` + usage
	}
	rec.Reads = append(rec.Reads, recordedRead{TMS: at, Data: chunk(`{}`, `"stop"`, usage) + "data: [DONE]\n\n"})
	return rec
}

// continuedRouter returns a Router whose route "first" (model first) goes
// silent after its deltas and is continued, after 100 ms of silence, on
// route "next" (model next).
func continuedRouter(t *testing.T, recs map[string]recording, first, next string, opts ...tokenpace.Option) *tokenpace.Router {
	t.Helper()
	h := map[string]http.Handler{}
	for m, rec := range recs {
		h[m] = replay(rec)
	}
	url, hc := serve(t, byModel(h))
	r, err := tokenpace.NewRouter(tokenpace.NewClient(openaiClient(url, hc), opts...),
		tokenpace.Policy{Budget: tokenpace.Budget{Gap: 100 * time.Millisecond}, Continue: true},
		tokenpace.Route{Name: "first", Model: first}, tokenpace.Route{Name: "next", Model: next})
	if err != nil {
		t.Fatalf("NewRouter: %v", err)
	}
	return r
}

// TestContinuedHiddenThoughtsLeftOutOfTPOT: a stream that showed its
// reasoning (reasoning_content) and broke is continued on Gemini's
// OpenAI-compatible endpoint, whose 383 thoughts are counted in its total
// alone and never streamed. The caller read 4 chunks of the first route
// and 2 of Gemini's text (12 tokens), so TPOT is over the 16 tokens
// streamed, not over 399: before, the first try's shown reasoning made
// every reasoning token of the call count as streamed, and TPOT was 25
// times too small.
func TestContinuedHiddenThoughtsLeftOutOfTPOT(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		recs := map[string]recording{
			"deepseek-reasoner": chatReads("deepseek-reasoner", []string{
				`{"role":"assistant","reasoning_content":"Think"}`, `{"reasoning_content":" more."}`,
				`{"content":"Latency"}`, `{"content":" budgets"}`}, "", 100, true),
			"gemini-2.5-flash": chatReads("gemini-2.5-flash", []string{`{"role":"assistant","content":" hold"}`, `{"content":" here."}`},
				`{"prompt_tokens":40,"completion_tokens":12,"total_tokens":435}`, 50, false),
		}
		r := continuedRouter(t, recs, "deepseek-reasoner", "gemini-2.5-flash")
		s := r.NewStreaming(context.Background(), chat("deepseek-reasoner", 1000))
		for s.Next() {
		}
		if err := s.Err(); err != nil {
			t.Fatalf("Err = %v, want nil", err)
		}
		if got := s.Text(); got != "Latency budgets hold here." {
			t.Errorf("Text = %q, want the two parts", got)
		}
		tm := s.Timing()
		if tm.OutputTokens != 4+395 || tm.ReasoningTokens != 383 || tm.PromptTokens != 40 {
			t.Fatalf("Timing = %d output, %d reasoning, %d prompt; want 399, 383, 40", tm.OutputTokens, tm.ReasoningTokens, tm.PromptTokens)
		}
		if tm.OutputChunks != 6 {
			t.Fatalf("OutputChunks = %d, want 6", tm.OutputChunks)
		}
		if want := tm.LastChunk.Sub(tm.Chunks[0]) / 15; tm.TPOT() != want {
			t.Errorf("TPOT = %v, want %v (over the 16 tokens streamed)", tm.TPOT(), want)
		}
	})
}

package tokenpace_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/metrics"
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

// usageShape is a usage the codec reads specially, as a chat answer of
// model ends with it, and the counts the caller's Timing holds for it.
type usageShape struct {
	name, model, usage                string
	text                              bool // the answer streams text
	prompt, cached, output, reasoning int
	// next is the usage of the same server continuing a cut answer: its
	// prompt holds the output so far; nextPrompt and nextCached are the
	// counts read from it, nextOutput and nextReasoning its own output.
	next                                              string
	nextPrompt, nextCached, nextOutput, nextReasoning int
}

var usageShapes = []usageShape{
	{name: "Gemini's thoughts in its total alone", model: "gemini-2.5-flash", text: true,
		usage:  `{"prompt_tokens":7,"completion_tokens":12,"total_tokens":402}`,
		prompt: 7, output: 395, reasoning: 383,
		next:       `{"prompt_tokens":40,"completion_tokens":12,"total_tokens":435}`,
		nextPrompt: 40, nextOutput: 395, nextReasoning: 383},
	{name: "Gemini's completion_tokens 0 beside a larger total", model: "gemini-2.5-flash",
		usage:  `{"prompt_tokens":7,"completion_tokens":0,"total_tokens":8}`,
		prompt: 7, output: 1},
	{name: "Gemini's completion_tokens left out", model: "gemini-2.5-flash",
		usage:  `{"prompt_tokens":5,"total_tokens":12}`,
		prompt: 5, output: 7},
	{name: "Anthropic's cache reads apart from prompt_tokens", model: "claude-sonnet-4-5", text: true,
		usage:  `{"prompt_tokens":200,"completion_tokens":50,"total_tokens":250,"prompt_tokens_details":{"cached_tokens":800},"cache_creation_input_tokens":100}`,
		prompt: 1100, cached: 800, output: 50,
		next:       `{"prompt_tokens":220,"completion_tokens":50,"total_tokens":270,"prompt_tokens_details":{"cached_tokens":800},"cache_creation_input_tokens":100}`,
		nextPrompt: 1120, nextCached: 800, nextOutput: 50},
	{name: "reasoning under output_tokens_details, outside the completion", model: "m", text: true,
		usage:  `{"prompt_tokens":10,"completion_tokens":12,"total_tokens":52,"output_tokens_details":{"reasoning_tokens":30}}`,
		prompt: 10, output: 42, reasoning: 30,
		next:       `{"prompt_tokens":20,"completion_tokens":12,"total_tokens":62,"output_tokens_details":{"reasoning_tokens":30}}`,
		nextPrompt: 20, nextOutput: 42, nextReasoning: 30},
	{name: "xAI's reasoning outside the completion, inside the total", model: "grok-3-mini", text: true,
		usage:  `{"prompt_tokens":10,"completion_tokens":12,"total_tokens":52,"completion_tokens_details":{"reasoning_tokens":30}}`,
		prompt: 10, output: 42, reasoning: 30,
		next:       `{"prompt_tokens":20,"completion_tokens":12,"total_tokens":62,"completion_tokens_details":{"reasoning_tokens":30}}`,
		nextPrompt: 20, nextOutput: 42, nextReasoning: 30},
}

// observed is what an Observer recorded of one call: the Recorder's
// snapshot and the OTel GenAI token usage by token type.
type observed struct {
	snap   metrics.Snapshot
	tokens map[string]int64
}

// observe returns an Observer recording into an in-memory OTel reader, and
// a func that reads what it recorded.
func observe(t *testing.T) (*metrics.Observer, func() observed) {
	t.Helper()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
	obs, err := metrics.New(metrics.WithMeterProvider(mp))
	if err != nil {
		t.Fatal(err)
	}
	return obs, func() observed {
		var rm metricdata.ResourceMetrics
		if err := reader.Collect(context.Background(), &rm); err != nil {
			t.Fatal(err)
		}
		o := observed{snap: obs.Recorder.Snapshot(), tokens: map[string]int64{}}
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				if m.Name != "gen_ai.client.token.usage" {
					continue
				}
				for _, dp := range m.Data.(metricdata.Histogram[int64]).DataPoints {
					v, _ := dp.Attributes.Value(attribute.Key("gen_ai.token.type"))
					o.tokens[v.AsString()] += dp.Sum
				}
			}
		}
		return o
	}
}

// wantFigures checks that the caller's Timing holds prompt, cached, output
// and reasoning tokens, a TPOT over the tokens streamed (the output less
// the reasoning no stream showed) when streamed, and that the Recorder
// and the OTel token usage hold the same counts, its goodput the output.
func wantFigures(t *testing.T, how string, tm *tokenpace.Timing, o observed, prompt, cached, output, reasoning int, streamed bool) {
	t.Helper()
	if tm.PromptTokens != prompt || tm.CachedTokens != cached || tm.OutputTokens != output || tm.ReasoningTokens != reasoning {
		t.Errorf("%s: Timing = %d prompt, %d cached, %d output, %d reasoning; want %d, %d, %d, %d",
			how, tm.PromptTokens, tm.CachedTokens, tm.OutputTokens, tm.ReasoningTokens, prompt, cached, output, reasoning)
	}
	var want time.Duration
	if n := output - reasoning; streamed && n >= 2 && len(tm.Chunks) > 0 {
		want = tm.LastChunk.Sub(tm.Chunks[0]) / time.Duration(n-1)
	}
	if tm.TPOT() != want {
		t.Errorf("%s: TPOT = %v, want %v (over the %d tokens streamed)", how, tm.TPOT(), want, output-reasoning)
	}
	if s := o.snap; s.InputTokens != int64(prompt) || s.CachedTokens != int64(cached) || s.OutputTokens != int64(output) || s.Good != 1 {
		t.Errorf("%s: Recorder = %d input, %d cached, %d output, %d good; want %d, %d, %d, 1",
			how, s.InputTokens, s.CachedTokens, s.OutputTokens, s.Good, prompt, cached, output)
	}
	if s := o.snap; s.Duration > 0 && s.TokenGoodput != s.OutputThroughput {
		t.Errorf("%s: Recorder token goodput %v, want its output throughput %v (every token good)", how, s.TokenGoodput, s.OutputThroughput)
	}
	if o.tokens["input"] != int64(prompt) || o.tokens["output"] != int64(output) {
		t.Errorf("%s: gen_ai.client.token.usage = %v, want input %d, output %d", how, o.tokens, prompt, output)
	}
}

// wantUsage checks that u, a chat usage the caller reads, says prompt,
// cached, output and reasoning tokens, its total their sum.
func wantUsage(t *testing.T, how string, u openai.CompletionUsage, prompt, cached, output, reasoning int) {
	t.Helper()
	if u.PromptTokens != int64(prompt) || u.PromptTokensDetails.CachedTokens != int64(cached) || u.CompletionTokens != int64(output) ||
		u.CompletionTokensDetails.ReasoningTokens != int64(reasoning) || u.TotalTokens != int64(prompt+output) {
		t.Errorf("%s: usage = %d prompt (%d cached), %d completion (%d reasoning), %d total; want %d (%d), %d (%d), %d",
			how, u.PromptTokens, u.PromptTokensDetails.CachedTokens, u.CompletionTokens, u.CompletionTokensDetails.ReasoningTokens,
			u.TotalTokens, prompt, cached, output, reasoning, prompt+output)
	}
}

// TestUsageFiguresEndToEnd: every usage shape the codec reads specially
// gives the same counts in the caller's Timing, in Accumulated().Usage
// and in the Recorder and the OTel GenAI token usage it feeds, streamed
// and whole through a Client, and continued after a cut through a Router
// (the cut try's 3 chunks counted as 3 tokens, the continuation's usage
// once: no thoughts, cache reads or reasoning counted twice); TPOT is
// over the tokens streamed, the hidden reasoning left out.
func TestUsageFiguresEndToEnd(t *testing.T) {
	for _, sh := range usageShapes {
		t.Run(sh.name, func(t *testing.T) {
			var deltas []string
			if sh.text {
				deltas = []string{`{"role":"assistant","content":"Latency"}`, `{"content":" budgets"}`, `{"content":" hold."}`}
			}
			synctest.Test(t, func(t *testing.T) {
				obs, read := observe(t)
				url, hc := serve(t, replay(chatReads(sh.model, deltas, sh.usage, 100, false)))
				s := tokenpace.NewClient(openaiClient(url, hc), tokenpace.WithHooks(obs.Hooks())).NewStreaming(context.Background(), chat(sh.model, 1000))
				for s.Next() {
				}
				if err := s.Err(); err != nil {
					t.Fatalf("streamed: %v", err)
				}
				_ = s.Close()
				wantFigures(t, "streamed", s.Timing(), read(), sh.prompt, sh.cached, sh.output, sh.reasoning, true)
				wantUsage(t, "streamed Accumulated()", s.Accumulated().Usage, sh.prompt, sh.cached, sh.output, sh.reasoning)
			})
			synctest.Test(t, func(t *testing.T) {
				obs, read := observe(t)
				content := ""
				if sh.text {
					content = `,"content":"Latency budgets hold."`
				}
				body := `{"id":"c-1","object":"chat.completion","created":1775595257,"model":"` + sh.model + `","choices":[{"index":0,"message":{"role":"assistant"` +
					content + `},"finish_reason":"stop"}],"usage":` + sh.usage + `}`
				url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "application/json")
					_, _ = w.Write([]byte(body))
				}))
				var tm *tokenpace.Timing
				if _, err := tokenpace.NewClient(openaiClient(url, hc), tokenpace.WithHooks(obs.Hooks())).New(context.Background(),
					chat(sh.model, 1000), tokenpace.WithTimingInto(&tm)); err != nil {
					t.Fatalf("whole: %v", err)
				}
				wantFigures(t, "whole", tm, read(), sh.prompt, sh.cached, sh.output, sh.reasoning, false)
			})
			if sh.next == "" {
				return // no text to continue
			}
			synctest.Test(t, func(t *testing.T) {
				obs, read := observe(t)
				recs := map[string]recording{
					"first":  chatReads("first", deltas, "", 100, true),
					sh.model: chatReads(sh.model, []string{`{"role":"assistant","content":" here"}`, `{"content":" too."}`}, sh.next, 50, false),
				}
				r := continuedRouter(t, recs, "first", sh.model, tokenpace.WithHooks(obs.Hooks()))
				s := r.NewStreaming(context.Background(), chat("first", 1000))
				var last openai.CompletionUsage
				for s.Next() {
					if c := s.Current(); c.JSON.Usage.Valid() {
						last = c.Usage
					}
				}
				if err := s.Err(); err != nil {
					t.Fatalf("continued: %v", err)
				}
				_ = s.Close()
				if got := s.Text(); got != "Latency budgets hold. here too." {
					t.Errorf("continued: Text = %q, want both parts", got)
				}
				tm := s.Timing()
				out := 3 + sh.nextOutput
				wantFigures(t, "continued", tm, read(), sh.nextPrompt, sh.nextCached, out, sh.nextReasoning, true)
				wantUsage(t, "continued Accumulated()", s.Accumulated().Usage, sh.nextPrompt, sh.nextCached, out, sh.nextReasoning)
				// The last chunk keeps its server's counts, with the 3
				// tokens of the cut try added to its completion and total.
				var raw openai.CompletionUsage
				if err := json.Unmarshal([]byte(sh.next), &raw); err != nil {
					t.Fatal(err)
				}
				if last.CompletionTokens != raw.CompletionTokens+3 || last.TotalTokens != raw.TotalTokens+3 || last.PromptTokens != raw.PromptTokens {
					t.Errorf("continued: last chunk's usage = %d/%d/%d, want the server's %d/%d/%d with the 3 earlier tokens added",
						last.PromptTokens, last.CompletionTokens, last.TotalTokens, raw.PromptTokens, raw.CompletionTokens, raw.TotalTokens)
				}
			})
		})
	}
}

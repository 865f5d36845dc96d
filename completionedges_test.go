package tokenpace_test

// Completions whose answer a continuation cannot carry (an echoed prompt),
// prompts given as several strings, and whole calls beside streams on one
// route.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// compEvent writes one completions SSE event with text on choice 0.
func compEvent(w http.ResponseWriter, id, text, finish string) {
	fr := "null"
	if finish != "" {
		fr = fmt.Sprintf("%q", finish)
	}
	fmt.Fprintf(w, "data: {\"id\":%q,\"object\":\"text_completion\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"text\":%q,\"finish_reason\":%s,\"logprobs\":null}]}\n\n", id, text, fr)
	http.NewResponseController(w).Flush()
}

// TestCompletionEchoContinuation: an echoed completion that stalled was
// continued with the echo in its prompt (the prompt twice) and echo on,
// and the caller read "P: a bP:P: a b c" with a nil error. Its output
// begins with the prompt, which no continuation can carry: it restarts.
func TestCompletionEchoContinuation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var prompts []string
		url, hc, _ := serveCounting(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
			var req struct {
				Model  string `json:"model"`
				Prompt string `json:"prompt"`
				Echo   bool   `json:"echo"`
			}
			_ = json.Unmarshal(body, &req)
			mu.Lock()
			prompts = append(prompts, req.Prompt)
			mu.Unlock()
			w.Header().Set("Content-Type", "text/event-stream")
			if req.Model == "big" {
				time.Sleep(10 * time.Millisecond)
				compEvent(w, "c1", req.Prompt, "") // the echo
				compEvent(w, "c1", " a", "")
				compEvent(w, "c1", " b", "")
				<-r.Context().Done() // stall
				return
			}
			time.Sleep(10 * time.Millisecond)
			if req.Echo {
				compEvent(w, "c2", req.Prompt, "")
			}
			compEvent(w, "c2", " c", "stop")
			fmt.Fprint(w, "data: [DONE]\n\n")
		})
		r, err := tokenpace.NewRouter(tokenpace.NewClient(openaiClient(url, hc)),
			tokenpace.Policy{Budget: tokenpace.Budget{Gap: 100 * time.Millisecond}, Continue: true}, route("big"), route("small"))
		if err != nil {
			t.Fatal(err)
		}
		params := openai.CompletionNewParams{Model: "big",
			Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("P:")},
			Echo:   openai.Bool(true)}
		s := r.NewCompletionStreaming(context.Background(), params)
		readCompletion(s, time.Now())
		want := []tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptRestart}
		if s.Err() != nil || s.Text() != "P: c" || !slices.Equal(kinds(s.Timing()), want) || !slices.Equal(prompts, []string{"P:", "P:"}) {
			t.Errorf("Err() = %v, Text() %q, kinds %v, prompts sent %q; want nil, %q, %v, the prompt alone each time",
				s.Err(), s.Text(), kinds(s.Timing()), prompts, "P: c", want)
		}
	})
}

// compEventAt writes one completions SSE event with text on choice idx.
func compEventAt(w http.ResponseWriter, idx int, text, finish string) {
	fr := "null"
	if finish != "" {
		fr = fmt.Sprintf("%q", finish)
	}
	fmt.Fprintf(w, "data: {\"id\":\"c1\",\"object\":\"text_completion\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":%d,\"text\":%q,\"finish_reason\":%s,\"logprobs\":null}]}\n\n", idx, text, fr)
	http.NewResponseController(w).Flush()
}

// batchServer streams a completion of two prompts, one choice per prompt
// (index 0 and 1, as OpenAI and vLLM number a batch's choices).
func batchServer(t *testing.T) (string, *http.Client) {
	url, hc, _ := serveCounting(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		var req struct {
			Stream bool `json:"stream"`
		}
		_ = json.Unmarshal(body, &req)
		if !req.Stream {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"id":"c1","object":"text_completion","created":1,"model":"m","choices":[`+
				`{"index":0,"text":" a1 a2","finish_reason":"stop","logprobs":null},`+
				`{"index":1,"text":" b1 b2","finish_reason":"stop","logprobs":null}],`+
				`"usage":{"prompt_tokens":2,"completion_tokens":4,"total_tokens":6}}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		compEventAt(w, 0, " a1", "")
		compEventAt(w, 1, " b1", "")
		compEventAt(w, 0, " a2", "stop")
		compEventAt(w, 1, " b2", "stop")
		fmt.Fprint(w, "data: {\"id\":\"c1\",\"object\":\"text_completion\",\"created\":1,\"model\":\"m\",\"choices\":[],\"usage\":{\"prompt_tokens\":2,\"completion_tokens\":4,\"total_tokens\":6}}\n\n")
		fmt.Fprint(w, "data: [DONE]\n\n")
	})
	return url, hc
}

func batchParams() openai.CompletionNewParams {
	return openai.CompletionNewParams{Model: "m",
		Prompt: openai.CompletionNewParamsPromptUnion{OfArrayOfStrings: []string{"A", "B"}}}
}

// A prompt of two strings is answered with two choices (one per prompt);
// the caller reads each as bare openai-go does.
func TestCompletionBatchPromptStreaming(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		url, hc := batchServer(t)
		oc := openaiClient(url, hc)
		bare := map[int64]string{}
		bs := oc.Completions.NewStreaming(context.Background(), batchParams())
		for bs.Next() {
			for _, ch := range bs.Current().Choices {
				bare[ch.Index] += ch.Text
			}
		}

		got := map[int64]string{}
		s := tokenpace.NewClient(oc).NewCompletionStreaming(context.Background(), batchParams())
		for s.Next() {
			for _, ch := range s.Current().Choices {
				got[ch.Index] += ch.Text
			}
		}
		s.Close()
		acc := s.Accumulated()
		if len(acc.Choices) != 2 {
			t.Errorf("Accumulated() has %d choice(s), want 2: one per prompt", len(acc.Choices))
		}
		if s.Err() != nil || got[0] != bare[0] || got[1] != bare[1] {
			t.Errorf("tokenpace read %v (err %v), bare openai-go %v", got, s.Err(), bare)
		}
	})
}

// Two prompts, n = 2: four choices, numbered 0..3 (prompt i's j-th at
// i*n+j, as OpenAI and vLLM number them).
func TestCompletionBatchPromptN2(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		url, hc, _ := serveCounting(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
			w.Header().Set("Content-Type", "text/event-stream")
			for i := range 4 {
				compEventAt(w, i, fmt.Sprintf(" x%d", i), "")
			}
			for i := range 4 {
				compEventAt(w, i, "", "stop")
			}
			fmt.Fprint(w, "data: [DONE]\n\n")
		})
		oc := openaiClient(url, hc)
		p := batchParams()
		p.N = openai.Int(2)
		bare := map[int64]string{}
		bs := oc.Completions.NewStreaming(context.Background(), p)
		for bs.Next() {
			for _, ch := range bs.Current().Choices {
				bare[ch.Index] += ch.Text
			}
		}
		got := map[int64]string{}
		s := tokenpace.NewClient(oc).NewCompletionStreaming(context.Background(), p)
		for s.Next() {
			for _, ch := range s.Current().Choices {
				got[ch.Index] += ch.Text
			}
		}
		s.Close()
		if s.Err() != nil || len(got) != len(bare) {
			t.Errorf("tokenpace read %v (err %v), bare openai-go %v", got, s.Err(), bare)
		}
	})
}

// Whole calls feed their time to the whole response into the route's
// TTFT model, which admission then reads as a streaming call's TTFT: a
// route whose streams start in 50 ms is skipped for its "TTFT" of 2 s.
func TestWholeCallsSkewStreamingAdmission(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		primary := route("primary")
		primary.Budget = tokenpace.Budget{TTFT: 500 * time.Millisecond}
		r := router(t, tokenpace.Policy{}, []simulate.Option{
			simulate.WithModel("primary", &simulate.Fixed{TTFT: 50 * time.Millisecond, ITL: 20 * time.Millisecond}),
			simulate.WithModel("backup", &simulate.Fixed{TTFT: 50 * time.Millisecond, ITL: 20 * time.Millisecond}),
			replyWords(100),
		}, primary, route("backup"))
		// Whole calls get a budget of their own: 10 s for the whole answer.
		wctx := tokenpace.ContextWithCallPolicy(context.Background(), tokenpace.CallPolicy{Budget: tokenpace.Budget{TTFT: 10 * time.Second}})
		for range 3 {
			var tm *tokenpace.Timing
			if _, err := r.New(wctx, chat("primary", 100), tokenpace.WithTimingInto(&tm)); err != nil {
				t.Fatal(err)
			}
		}
		s := r.NewStreaming(context.Background(), chat("primary", 100))
		readAll(t, s)
		tm := s.Timing()
		if tm.Target != "primary" {
			t.Errorf("stream answered by %s (outcomes %v), want primary, whose streams start in 50 ms", tm.Target, outcomes(tm))
		}
	})
}

// Hedge.Percentile learnt from streams (TTFT 50 ms) hedges every whole
// call of the same route after 50 ms, though its answer takes 2 s by
// nature: each whole call costs two requests.
func TestWholeCallHedgedAtStreamTTFT(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := router(t, tokenpace.Policy{Hedge: tokenpace.Hedge{Percentile: 0.9, MinSamples: 3}}, []simulate.Option{
			simulate.WithModel("primary", &simulate.Fixed{TTFT: 50 * time.Millisecond, ITL: 20 * time.Millisecond}),
			simulate.WithModel("backup", &simulate.Fixed{TTFT: 50 * time.Millisecond, ITL: 20 * time.Millisecond}),
			replyWords(100),
		}, route("primary"), route("backup"))
		for range 3 {
			callOK(t, r, chat("primary", 100))
		}
		var tm *tokenpace.Timing
		if _, err := r.New(context.Background(), chat("primary", 100), tokenpace.WithTimingInto(&tm)); err != nil {
			t.Fatal(err)
		}
		if len(tm.Attempts) != 1 {
			t.Errorf("whole call made %d attempts (%v), want 1: the primary was on time for a whole answer", len(tm.Attempts), kinds(tm))
		}
	})
}

// TestRouterWholeCutKeepsText: a whole answer its server stopped itself
// (finish_reason "abort") comes from Client.NewCompletion with its error,
// the text kept; Router.NewCompletion, with no route left, returned nil
// and the error. It now returns the same answer.
func TestRouterWholeCutKeepsText(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		url, hc, _ := serveCounting(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"id":"c1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":" partial answer","finish_reason":"abort","logprobs":null}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`)
		})
		c := tokenpace.NewClient(openaiClient(url, hc))
		p := openai.CompletionNewParams{Model: "m", Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("P")}}
		cres, cerr := c.NewCompletion(context.Background(), p)
		r, err := tokenpace.NewRouter(c, tokenpace.Policy{}, route("a"), route("b"))
		if err != nil {
			t.Fatal(err)
		}
		rres, rerr := r.NewCompletion(context.Background(), p)
		for who, res := range map[string]*openai.Completion{"Client": cres, "Router": rres} {
			if res == nil || res.Choices[0].Text != " partial answer" {
				t.Errorf("%s: %v; want the cut answer", who, res)
			}
		}
		var cse, rse *tokenpace.StreamError
		if !errors.As(cerr, &cse) || !errors.As(rerr, &rse) || cse.Kind != tokenpace.KindTruncated || rse.Kind != tokenpace.KindTruncated {
			t.Errorf("errors: Client %v, Router %v; want KindTruncated from both", cerr, rerr)
		}
	})
}

package tokenpace_test

// Engines' /v1/completions: a suffix refused (vLLM, Ollama), and vLLM's n
// choices streamed one chunk each, with a running usage per choice.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
)

// TestSuffixRefusedByEngine: engines that refuse a completions request
// with a suffix, before they stream, with 400. vLLM: "suffix is not
// currently supported" (vllm/renderers/online_renderer.py,
// render_completion; the error nested as {"error": {…}}). Ollama, for a
// model whose template has no suffix (no "insert" capability): "<model>
// does not support insert" (ollama/ollama@fb30760 server/routes.go,
// GenerateHandler and handleScheduleError; server/images.go,
// CheckCapabilities; openai/openai.go, NewError). The caller gets that
// request error at once, its message kept, sent once; a Router falls back
// to its next route, which answers, and no breaker counts it.
func TestSuffixRefusedByEngine(t *testing.T) {
	for name, body := range map[string]string{
		"vLLM":   `{"error":{"message":"suffix is not currently supported","type":"BadRequestError","param":null,"code":400}}`,
		"Ollama": `{"error":{"message":"registry.ollama.ai/library/qwen3:0.6b does not support insert","type":"invalid_request_error","param":null,"code":null}}`,
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var refused atomic.Int32
				url, hc := serve(t, byModel(map[string]http.Handler{
					"engine": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						refused.Add(1)
						w.Header().Set("Content-Type", "application/json")
						w.WriteHeader(http.StatusBadRequest)
						fmt.Fprint(w, body)
					}),
					"second": secondRoute,
				}))
				var e struct{ Error struct{ Message string } }
				_ = json.Unmarshal([]byte(body), &e)
				c := tokenpace.NewClient(openaiClient(url, hc))
				p := openai.CompletionNewParams{Model: "engine", Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("def add(a, b):\n")},
					Suffix: openai.String("\nprint(add(1, 2))\n"), MaxTokens: openai.Int(16)}

				s := c.NewCompletionStreaming(context.Background(), p)
				for s.Next() {
				}
				s.Close()
				var ae *openai.Error
				if se := checkKind(t, s.Err(), tokenpace.KindRequest); se != nil && (!errors.As(s.Err(), &ae) || ae.StatusCode != 400 || ae.Message != e.Error.Message) {
					t.Errorf("Client: %v, want the server's 400 and its message", s.Err())
				}
				if s.Text() != "" || refused.Load() != 1 {
					t.Errorf("Client: %q after %d requests, want no text after 1", s.Text(), refused.Load())
				}
				if _, err := c.NewCompletion(context.Background(), p); !errors.As(err, &ae) || ae.StatusCode != 400 || refused.Load() != 2 {
					t.Errorf("Client, whole: %v after %d requests, want the 400 after 2", err, refused.Load())
				}

				r, err := tokenpace.NewRouter(c, tokenpace.Policy{Continue: true}, route("engine"), route("second"))
				if err != nil {
					t.Fatal(err)
				}
				for range 6 {
					s = r.NewCompletionStreaming(context.Background(), p)
					for s.Next() {
					}
					s.Close()
					if s.Err() != nil || s.Text() != extra {
						t.Fatalf("Router: %q, %v; want the second route's answer", s.Text(), s.Err())
					}
				}
				if st, _ := r.BreakerState("engine"); st.String() != "closed" {
					t.Errorf("the breaker of the route that refused a suffix is %v, want closed", st)
				}
			})
		})
	}
}

// TestVLLMChoicesStreamed: vLLM streams n choices as chunks of one choice
// each, index 0 and 1 in turn, each with its own finish reason; with
// continuous_usage_stats each chunk carries its own choice's running
// usage (prompt, and that choice's completion tokens), and the last chunk
// the whole usage, the completion tokens of both
// (vllm/entrypoints/openai/completion/serving.py,
// completion_stream_generator). The caller gets both choices whole, the
// whole usage, and a complete answer: no continuation.
func TestVLLMChoicesStreamed(t *testing.T) {
	texts := [2][]string{{" 1", " +", " 1", " = 2"}, {" one", " plus", " one"}}
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for k := range 4 {
			for i, parts := range texts {
				if k >= len(parts) {
					continue
				}
				finish := "null"
				if k == len(parts)-1 {
					finish = `"stop"`
				}
				fmt.Fprintf(w, "data: {\"id\":\"cmpl-n2\",\"object\":\"text_completion\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":%d,\"text\":%q,\"logprobs\":null,\"finish_reason\":%s,\"stop_reason\":null}],\"usage\":{\"prompt_tokens\":5,\"total_tokens\":%d,\"completion_tokens\":%d}}\n\n",
					i, parts[k], finish, 5+k+1, k+1)
			}
		}
		fmt.Fprint(w, "data: {\"id\":\"cmpl-n2\",\"object\":\"text_completion\",\"created\":1,\"model\":\"m\",\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"total_tokens\":12,\"completion_tokens\":7}}\n\ndata: [DONE]\n\n")
	})
	synctest.Test(t, func(t *testing.T) {
		url, hc := serve(t, byModel(map[string]http.Handler{"m": handler, "second": secondRoute}))
		c := tokenpace.NewClient(openaiClient(url, hc))
		r, err := tokenpace.NewRouter(c, tokenpace.Policy{Continue: true}, route("m"), route("second"))
		if err != nil {
			t.Fatal(err)
		}
		p := openai.CompletionNewParams{Model: "m", Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("1 + 1 =")},
			N: openai.Int(2), MaxTokens: openai.Int(8),
			StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}}
		p.SetExtraFields(map[string]any{"stream_options": map[string]any{"include_usage": true, "continuous_usage_stats": true}})
		for who, s := range map[string]*tokenpace.Stream[openai.Completion]{
			"Client": c.NewCompletionStreaming(context.Background(), p),
			"Router": r.NewCompletionStreaming(context.Background(), p)} {
			var got [2]strings.Builder
			for s.Next() {
				for _, ch := range s.Current().Choices {
					got[ch.Index].WriteString(ch.Text)
				}
			}
			s.Close()
			tm := s.Timing()
			acc := s.Accumulated()
			if s.Err() != nil || got[0].String() != " 1 + 1 = 2" || got[1].String() != " one plus one" {
				t.Errorf("%s: %q and %q, %v; want both choices whole", who, got[0].String(), got[1].String(), s.Err())
			}
			if len(acc.Choices) != 2 || acc.Choices[1].Message.Content != " one plus one" || acc.Choices[0].FinishReason != "stop" || acc.Choices[1].FinishReason != "stop" {
				t.Errorf("%s: Accumulated() %+v, want both choices, finished", who, acc.Choices)
			}
			if !tm.UsageReported || tm.PromptTokens != 5 || tm.OutputTokens != 7 || acc.Usage.CompletionTokens != 7 || acc.Usage.PromptTokens != 5 {
				t.Errorf("%s: usage %v %d %d, Accumulated() %d %d; want 5 and 7", who, tm.UsageReported, tm.PromptTokens, tm.OutputTokens, acc.Usage.PromptTokens, acc.Usage.CompletionTokens)
			}
			if who == "Router" && len(tm.Attempts) != 1 {
				t.Errorf("Router: %d attempts, want 1", len(tm.Attempts))
			}
		}
	})
}

package tokenpace_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
)

// llamaCppChoicesStream is a chat stream of llama.cpp's server (2026
// builds) for n = 2 with include_usage: each choice is a task of its own,
// whose final result writes its finish chunk and then a usage chunk of
// its own ("choices": [], that choice's completion tokens, the prompt's
// tokens, timings), as the choices finish; then [DONE]. Choice 1 ends
// first here, with 3 tokens; choice 0 with 2. (tools/server/server-task.cpp:
// server_task_result_cmpl_final::to_json_oaicompat_chat_stream, the
// children of server_task::add_child copying include_usage; the finish
// chunk's index since ggml-org/llama.cpp#20226.)
func llamaCppChoicesStream() string {
	const tail = `"created":1787000000,"id":"chatcmpl-n2","model":"tiny","system_fingerprint":"b9800-5e1f2a3b","object":"chat.completion.chunk"`
	ch := func(index int, delta, finish string) string {
		return fmt.Sprintf(`data: {"choices":[{"finish_reason":%s,"index":%d,"delta":%s}],%s}`+"\n\n", finish, index, delta, tail)
	}
	usage := func(output int) string {
		return fmt.Sprintf(`data: {"choices":[],%s,"usage":{"completion_tokens":%d,"prompt_tokens":20,"total_tokens":%d},`+
			`"timings":{"cache_n":8,"prompt_n":12,"prompt_ms":6.1,"prompt_per_token_ms":0.5,"prompt_per_second":1967.2,"predicted_n":%d,"predicted_ms":30.2,"predicted_per_token_ms":10.1,"predicted_per_second":99.3}}`+"\n\n",
			tail, output, 20+output, output)
	}
	role := `{"role":"assistant","content":null}`
	return ch(0, role, "null") + ch(0, `{"content":"a"}`, "null") +
		ch(1, role, "null") + ch(1, `{"content":"x"}`, "null") +
		ch(0, `{"content":"b"}`, "null") + ch(1, `{"content":"y"}`, "null") + ch(1, `{"content":"z"}`, "null") +
		ch(1, `{}`, `"stop"`) + usage(3) +
		ch(0, `{}`, `"stop"`) + usage(2) +
		"data: [DONE]\n\n"
}

// TestLlamaCppUsagePerChoice: llama.cpp's server answers a streamed
// request for n = 2 with a usage chunk per choice, each counting that
// choice's output alone. The caller got the usage of the choice that
// finished last: 2 output tokens of 5 (bare openai-go's accumulator adds
// them up: 5 output tokens, but 40 prompt tokens for a prompt of 20). It
// now gets the answer's: 20 prompt tokens, 8 of them cached, and 5 output
// tokens, in Timing and Accumulated().Usage, through a Client and a Router.
func TestLlamaCppUsagePerChoice(t *testing.T) {
	body := llamaCppChoicesStream()
	url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Server", "llama.cpp")
		sseBody(body)(w, r)
	}))
	req := chat("tiny", 6)
	req.N = openai.Int(2)
	req.StreamOptions.IncludeUsage = openai.Bool(true)

	oc := openaiClient(url, hc)
	bare := oc.Chat.Completions.NewStreaming(context.Background(), req)
	var acc openai.ChatCompletionAccumulator
	for bare.Next() {
		acc.AddChunk(bare.Current())
	}
	if bare.Err() != nil || acc.Usage.PromptTokens != 40 || acc.Usage.CompletionTokens != 5 {
		t.Errorf("bare openai-go: err %v, usage %d prompt, %d output; the fixture's premise is 40 and 5", bare.Err(), acc.Usage.PromptTokens, acc.Usage.CompletionTokens)
	}

	c := tokenpace.NewClient(openaiClient(url, hc))
	r, err := tokenpace.NewRouter(c, tokenpace.Policy{}, route("tiny"))
	if err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]*tokenpace.Stream[openai.ChatCompletionChunk]{
		"Client": c.NewStreaming(context.Background(), req),
		"Router": r.NewStreaming(context.Background(), req),
	} {
		texts := map[int64]*strings.Builder{0: {}, 1: {}}
		for s.Next() {
			for _, ch := range s.Current().Choices {
				if b := texts[ch.Index]; b != nil {
					b.WriteString(ch.Delta.Content)
				}
			}
		}
		s.Close()
		tm, a := s.Timing(), s.Accumulated()
		if s.Err() != nil || texts[0].String() != "ab" || texts[1].String() != "xyz" {
			t.Errorf("%s: choices %q and %q, err %v; want \"ab\", \"xyz\" and nil", name, texts[0], texts[1], s.Err())
		}
		if !tm.UsageReported || tm.PromptTokens != 20 || tm.CachedTokens != 8 || tm.OutputTokens != 5 {
			t.Errorf("%s: Timing's usage reported %v, %d prompt (%d cached), %d output tokens; want the answer's: 20 (8), 5",
				name, tm.UsageReported, tm.PromptTokens, tm.CachedTokens, tm.OutputTokens)
		}
		if u := a.Usage; u.PromptTokens != 20 || u.CompletionTokens != 5 || u.TotalTokens != 25 || u.PromptTokensDetails.CachedTokens != 8 {
			t.Errorf("%s: Accumulated().Usage %d prompt (%d cached), %d output, %d total; want 20 (8), 5, 25",
				name, u.PromptTokens, u.PromptTokensDetails.CachedTokens, u.CompletionTokens, u.TotalTokens)
		}
		if len(a.Choices) != 2 || a.Choices[0].Message.Content != "ab" || a.Choices[1].Message.Content != "xyz" {
			t.Errorf("%s: Accumulated() choices %+v; want \"ab\" and \"xyz\"", name, a.Choices)
		}
	}
}

// TestLlamaCppCompletionsUsagePerChoice replays llama.cpp's /v1/completions
// streams (2026 builds) of several choices, each choice a task of its own
// whose final result is its finish chunk: the choice with empty text
// beside usage and timings that count that task's prompt and output
// alone, whether or not include_usage was asked
// (tools/server/server-task.cpp: server_task_result_cmpl_final::to_json_oaicompat;
// tools/server/server-queue.cpp: server_response_reader::post_tasks,
// which numbers the tasks of a request's prompts in order, each prompt's
// n - 1 children after it); then [DONE].
//
// For n = 2 of one prompt, choice 1 ends first with 2 tokens, choice 0 at
// max_tokens with 4: bare openai-go's last usage is choice 0's, 4 output
// tokens of 6; the caller gets 7 prompt tokens, 1 cached, and 6 output
// tokens. For two prompts, prompt 1's choice (5 prompt tokens) ends first
// with 2, prompt 0's (7, 1 cached) with 4: the caller got 7 prompt tokens,
// the largest, as for copies of one prompt; it now gets both prompts',
// 12, as OpenAI and vLLM count a list of prompts, 1 cached, and 6 output
// tokens. Each in Timing and Accumulated().Usage, through a Client and a
// Router, with no continuation.
func TestLlamaCppCompletionsUsagePerChoice(t *testing.T) {
	for _, tc := range []struct {
		file           string
		prompt         openai.CompletionNewParamsPromptUnion
		n              int64
		texts          [2]string
		tokens, cached int64 // the answer's prompt tokens, and those cached
	}{
		{"llamacpp-2026-completions-n2-stream.jsonl", openai.CompletionNewParamsPromptUnion{OfString: openai.String("def f(x):\n")}, 2,
			[2]string{" return x * 2", " pass\n"}, 7, 1},
		{"llamacpp-2026-completions-prompts2-stream.jsonl", openai.CompletionNewParamsPromptUnion{OfArrayOfStrings: []string{"def f(x):\n", "class A:\n"}}, 1,
			[2]string{" return x * 2", " def __init__"}, 12, 1},
	} {
		t.Run(tc.file, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rec := loadRecording(t, tc.file)
				url, hc := serve(t, byModel(map[string]http.Handler{"tiny": replay(rec), "second": secondRoute}))
				p := openai.CompletionNewParams{Model: "tiny", Prompt: tc.prompt, N: openai.Int(tc.n), MaxTokens: openai.Int(4),
					StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}}

				oc := openaiClient(url, hc)
				bare := oc.Completions.NewStreaming(context.Background(), p)
				var last openai.CompletionUsage
				for bare.Next() {
					if u := bare.Current().Usage; u.TotalTokens > 0 {
						last = u
					}
				}
				if bare.Err() != nil || last.PromptTokens != 7 || last.CompletionTokens != 4 {
					t.Errorf("bare openai-go: err %v, last usage %d prompt, %d output tokens; the fixture's premise is 7 and 4",
						bare.Err(), last.PromptTokens, last.CompletionTokens)
				}

				c := tokenpace.NewClient(openaiClient(url, hc))
				r, err := tokenpace.NewRouter(c, tokenpace.Policy{Continue: true}, route("tiny"), route("second"))
				if err != nil {
					t.Fatal(err)
				}
				for who, s := range map[string]*tokenpace.Stream[openai.Completion]{
					"Client": c.NewCompletionStreaming(context.Background(), p),
					"Router": r.NewCompletionStreaming(context.Background(), p),
				} {
					var got [2]strings.Builder
					for s.Next() {
						for _, ch := range s.Current().Choices {
							got[ch.Index%2].WriteString(ch.Text)
						}
					}
					s.Close()
					tm, acc := s.Timing(), s.Accumulated()
					if s.Err() != nil || got[0].String() != tc.texts[0] || got[1].String() != tc.texts[1] {
						t.Errorf("%s: choices %q and %q, err %v; want %q, %q and nil", who, got[0].String(), got[1].String(), s.Err(), tc.texts[0], tc.texts[1])
					}
					if !tm.UsageReported || int64(tm.PromptTokens) != tc.tokens || int64(tm.CachedTokens) != tc.cached || tm.OutputTokens != 6 {
						t.Errorf("%s: Timing's usage reported %v, %d prompt (%d cached), %d output tokens; want the answer's: %d (%d), 6",
							who, tm.UsageReported, tm.PromptTokens, tm.CachedTokens, tm.OutputTokens, tc.tokens, tc.cached)
					}
					if u := acc.Usage; u.PromptTokens != tc.tokens || u.CompletionTokens != 6 || u.TotalTokens != tc.tokens+6 || u.PromptTokensDetails.CachedTokens != tc.cached {
						t.Errorf("%s: Accumulated().Usage %d prompt (%d cached), %d output, %d total; want %d (%d), 6, %d",
							who, u.PromptTokens, u.PromptTokensDetails.CachedTokens, u.CompletionTokens, u.TotalTokens, tc.tokens, tc.cached, tc.tokens+6)
					}
					if who == "Router" && len(tm.Attempts) != 1 {
						t.Errorf("Router: %d attempts, want 1", len(tm.Attempts))
					}
				}
			})
		})
	}
}

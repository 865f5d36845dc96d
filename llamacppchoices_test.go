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
// stream for n = 2 (2026 builds): each choice is a task of its own, whose
// final result is its finish chunk, the choice with empty text beside
// usage and timings that count that choice's output alone, whether or not
// include_usage was asked (tools/server/server-task.cpp:
// server_task_result_cmpl_final::to_json_oaicompat); choice 1 ends first
// with 2 tokens, choice 0 at max_tokens with 4; then [DONE]. Bare
// openai-go's last usage is choice 0's: 4 output tokens of 6. The caller
// gets the answer's: 7 prompt tokens, 1 cached, 6 output tokens, in Timing
// and Accumulated().Usage, through a Client and a Router, and no
// continuation.
func TestLlamaCppCompletionsUsagePerChoice(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := loadRecording(t, "llamacpp-2026-completions-n2-stream.jsonl")
		url, hc := serve(t, byModel(map[string]http.Handler{"tiny": replay(rec), "second": secondRoute}))
		p := openai.CompletionNewParams{Model: "tiny", Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("def f(x):\n")},
			N: openai.Int(2), MaxTokens: openai.Int(4),
			StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}}

		oc := openaiClient(url, hc)
		bare := oc.Completions.NewStreaming(context.Background(), p)
		var last openai.CompletionUsage
		for bare.Next() {
			if u := bare.Current().Usage; u.TotalTokens > 0 {
				last = u
			}
		}
		if bare.Err() != nil || last.CompletionTokens != 4 {
			t.Errorf("bare openai-go: err %v, last usage %d output tokens; the fixture's premise is 4", bare.Err(), last.CompletionTokens)
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
			if s.Err() != nil || got[0].String() != " return x * 2" || got[1].String() != " pass\n" {
				t.Errorf("%s: choices %q and %q, err %v; want \" return x * 2\", \" pass\\n\" and nil", who, got[0].String(), got[1].String(), s.Err())
			}
			if !tm.UsageReported || tm.PromptTokens != 7 || tm.CachedTokens != 1 || tm.OutputTokens != 6 {
				t.Errorf("%s: Timing's usage reported %v, %d prompt (%d cached), %d output tokens; want the answer's: 7 (1), 6",
					who, tm.UsageReported, tm.PromptTokens, tm.CachedTokens, tm.OutputTokens)
			}
			if u := acc.Usage; u.PromptTokens != 7 || u.CompletionTokens != 6 || u.TotalTokens != 13 || u.PromptTokensDetails.CachedTokens != 1 {
				t.Errorf("%s: Accumulated().Usage %d prompt (%d cached), %d output, %d total; want 7 (1), 6, 13",
					who, u.PromptTokens, u.PromptTokensDetails.CachedTokens, u.CompletionTokens, u.TotalTokens)
			}
			if who == "Router" && len(tm.Attempts) != 1 {
				t.Errorf("Router: %d attempts, want 1", len(tm.Attempts))
			}
		}
	})
}

package tokenpace_test

// vLLM's /v1/completions with echo and logprobs: the prompt comes back in
// the first chunk with the first token, each prompt token's log
// probabilities beside it.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
)

// vllmEchoLogprobs is vLLM's answer to a completions request with echo,
// logprobs 1 and max_tokens 2 whose prompt is prompt tokens of "x ": its
// first chunk holds the prompt and the first output token, and the log
// probabilities of each (the first prompt token's null, as vLLM has
// none for it), text_offset counting from 0; the second the last token
// and the finish reason; then the usage chunk and [DONE]
// (vllm/entrypoints/openai/completion/serving.py,
// completion_stream_generator and _create_completion_logprobs). stream
// false: the whole answer, the same in one choice.
func vllmEchoLogprobs(prompt int, stream bool) http.HandlerFunc {
	logprobs := func(tokens []string, from int, first bool) string {
		var offsets, lps, tops []string
		off := from
		for i, tok := range tokens {
			offsets = append(offsets, fmt.Sprint(off))
			off += len(tok)
			if first && i == 0 {
				lps, tops = append(lps, "null"), append(tops, "null")
				continue
			}
			lps = append(lps, "-0.5")
			tops = append(tops, fmt.Sprintf(`{%q:-0.5,"y":-1.25}`, tok))
		}
		toks, _ := json.Marshal(tokens)
		return fmt.Sprintf(`{"text_offset":[%s],"token_logprobs":[%s],"tokens":%s,"top_logprobs":[%s]}`,
			strings.Join(offsets, ","), strings.Join(lps, ","), toks, strings.Join(tops, ","))
	}
	tokens := make([]string, prompt)
	for i := range tokens {
		tokens[i] = "x "
	}
	text := strings.Repeat("x ", prompt)
	return func(w http.ResponseWriter, r *http.Request) {
		if !stream {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"id":"cmpl-e1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":%q,"logprobs":%s,"finish_reason":"length","stop_reason":null,"prompt_logprobs":null}],"usage":{"prompt_tokens":%d,"total_tokens":%d,"completion_tokens":2}}`,
				text+"done.", logprobs(append(tokens, "done", "."), 0, true), prompt, prompt+2)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: {\"id\":\"cmpl-e1\",\"object\":\"text_completion\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"text\":%q,\"logprobs\":%s,\"finish_reason\":null,\"stop_reason\":null}]}\n\n",
			text+"done", logprobs(append(tokens, "done"), 0, true))
		fmt.Fprintf(w, "data: {\"id\":\"cmpl-e1\",\"object\":\"text_completion\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"text\":\".\",\"logprobs\":%s,\"finish_reason\":\"length\",\"stop_reason\":null}]}\n\n",
			logprobs([]string{"."}, len(text)+4, false))
		fmt.Fprintf(w, "data: {\"id\":\"cmpl-e1\",\"object\":\"text_completion\",\"created\":1,\"model\":\"m\",\"choices\":[],\"usage\":{\"prompt_tokens\":%d,\"total_tokens\":%d,\"completion_tokens\":2}}\n\ndata: [DONE]\n\n", prompt, prompt+2)
	}
}

// TestVLLMEchoLogprobs: vLLM echoes a completion's prompt in its first
// chunk, with the log probabilities of every prompt token: a prompt of
// thousands of tokens makes a chunk of thousands of objects, more than
// any chunk without an echo holds. Bare openai-go reads it; the caller
// must get the echo, the completion and every token's log probabilities,
// streamed or whole, through the Client and a Router.
func TestVLLMEchoLogprobs(t *testing.T) {
	for _, prompt := range []int{8, 6000, 70000} {
		for _, stream := range []bool{true, false} {
			t.Run(fmt.Sprintf("prompt %d, stream %v", prompt, stream), func(t *testing.T) {
				if prompt > 6000 && stream {
					t.Skip("a stream's first chunk is bounded as its prompt's: 6000 tokens show it")
				}
				synctest.Test(t, func(t *testing.T) {
					url, hc := serve(t, vllmEchoLogprobs(prompt, stream))
					oc := openaiClient(url, hc)
					c := tokenpace.NewClient(oc)
					r, err := tokenpace.NewRouter(c, tokenpace.Policy{Continue: true}, route("m"), tokenpace.Route{Name: "again", Model: "m"})
					if err != nil {
						t.Fatal(err)
					}
					p := openai.CompletionNewParams{Model: "m", Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String(strings.Repeat("x ", prompt))},
						Echo: openai.Bool(true), Logprobs: openai.Int(1), MaxTokens: openai.Int(2)}
					want := strings.Repeat("x ", prompt) + "done."
					check := func(who, text string, tokens int, err error) {
						t.Helper()
						if err != nil || text != want || tokens != prompt+2 {
							t.Errorf("%s: %d bytes of text (want %d), the log probabilities of %d tokens (want %d), error %v",
								who, len(text), len(want), tokens, prompt+2, err)
						}
					}
					if !stream {
						bare, err := oc.Completions.New(context.Background(), p)
						check("openai-go", bare.Choices[0].Text, len(bare.Choices[0].Logprobs.Tokens), err)
						got, err := c.NewCompletion(context.Background(), p)
						if err != nil {
							check("Client", "", 0, err)
						} else {
							check("Client", got.Choices[0].Text, len(got.Choices[0].Logprobs.Tokens), err)
						}
						got, err = r.NewCompletion(context.Background(), p)
						if err != nil {
							check("Router", "", 0, err)
						} else {
							check("Router", got.Choices[0].Text, len(got.Choices[0].Logprobs.Tokens), err)
						}
						return
					}
					read := func(next func() bool, cur func() openai.Completion) (string, int) {
						var text strings.Builder
						var tokens int
						for next() {
							for _, ch := range cur().Choices {
								text.WriteString(ch.Text)
								tokens += len(ch.Logprobs.Tokens)
							}
						}
						return text.String(), tokens
					}
					bare := oc.Completions.NewStreaming(context.Background(), p)
					text, tokens := read(bare.Next, bare.Current)
					check("openai-go", text, tokens, bare.Err())
					for who, s := range map[string]*tokenpace.Stream[openai.Completion]{
						"Client": c.NewCompletionStreaming(context.Background(), p),
						"Router": r.NewCompletionStreaming(context.Background(), p)} {
						text, tokens := read(s.Next, s.Current)
						s.Close()
						check(who, text, tokens, s.Err())
						if tm := s.Timing(); s.Err() == nil && (tm.FinishReason != "length" || tm.PromptTokens != prompt || tm.OutputTokens != 2 || s.Text() != want) {
							t.Errorf("%s: finish %q, usage %d and %d, Text() of %d bytes; want length, %d and 2, %d bytes",
								who, tm.FinishReason, tm.PromptTokens, tm.OutputTokens, len(s.Text()), prompt, len(want))
						}
					}
				})
			})
		}
	}
}

// TestVLLMEchoWithoutGeneration: echo with max_tokens 0, which scores a
// prompt (lm-evaluation-harness's loglikelihood): vLLM asks its engine
// for one token and answers with the prompt alone, finish "length", and a
// usage of one completion token (vllm/entrypoints/openai/completion/
// protocol.py, echo_without_generation; serving.py, "only return the
// prompt"). The caller gets the prompt and its log probabilities, as
// bare openai-go does, streamed or whole.
func TestVLLMEchoWithoutGeneration(t *testing.T) {
	const prompt = "The capital of France is Paris"
	lp := `{"text_offset":[0,3,11,14,21,24],"token_logprobs":[null,-7.5,-2.25,-0.5,-3.0,-0.125],"tokens":["The"," capital"," of"," France"," is"," Paris"],"top_logprobs":[null,{" capital":-7.5},{" of":-2.25},{" France":-0.5},{" is":-3.0},{" Paris":-0.125}]}`
	for _, stream := range []bool{true, false} {
		t.Run(fmt.Sprintf("stream %v", stream), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if !stream {
						w.Header().Set("Content-Type", "application/json")
						fmt.Fprintf(w, `{"id":"cmpl-s1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":%q,"logprobs":%s,"finish_reason":"length","stop_reason":null,"prompt_logprobs":null}],"usage":{"prompt_tokens":6,"total_tokens":7,"completion_tokens":1}}`, prompt, lp)
						return
					}
					w.Header().Set("Content-Type", "text/event-stream")
					fmt.Fprintf(w, "data: {\"id\":\"cmpl-s1\",\"object\":\"text_completion\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"text\":%q,\"logprobs\":%s,\"finish_reason\":\"length\",\"stop_reason\":null}]}\n\n", prompt, lp)
					fmt.Fprint(w, "data: {\"id\":\"cmpl-s1\",\"object\":\"text_completion\",\"created\":1,\"model\":\"m\",\"choices\":[],\"usage\":{\"prompt_tokens\":6,\"total_tokens\":7,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n")
				}))
				c := tokenpace.NewClient(openaiClient(url, hc))
				r, err := tokenpace.NewRouter(c, tokenpace.Policy{Continue: true}, route("m"), tokenpace.Route{Name: "again", Model: "m"})
				if err != nil {
					t.Fatal(err)
				}
				p := openai.CompletionNewParams{Model: "m", Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String(prompt)},
					Echo: openai.Bool(true), Logprobs: openai.Int(1), MaxTokens: openai.Int(0)}
				if !stream {
					for who, call := range map[string]func(context.Context, openai.CompletionNewParams, ...option.RequestOption) (*openai.Completion, error){
						"Client": c.NewCompletion, "Router": r.NewCompletion} {
						got, err := call(context.Background(), p)
						if err != nil || got.Choices[0].Text != prompt || len(got.Choices[0].Logprobs.TokenLogprobs) != 6 || got.Choices[0].FinishReason != "length" {
							t.Errorf("%s: %+v, %v; want the prompt, its 6 log probabilities, finish length", who, got, err)
						}
					}
					return
				}
				for who, s := range map[string]*tokenpace.Stream[openai.Completion]{
					"Client": c.NewCompletionStreaming(context.Background(), p),
					"Router": r.NewCompletionStreaming(context.Background(), p)} {
					var lps int
					for s.Next() {
						for _, ch := range s.Current().Choices {
							lps += len(ch.Logprobs.TokenLogprobs)
						}
					}
					s.Close()
					tm := s.Timing()
					if s.Err() != nil || s.Text() != prompt || lps != 6 || tm.FinishReason != "length" || tm.PromptTokens != 6 || (who == "Router") != (len(tm.Attempts) == 1) {
						t.Errorf("%s: %q, %d log probabilities, finish %q, %d prompt tokens, %d attempts, error %v; want the prompt, 6, length, 6, one attempt of the Router, nil",
							who, s.Text(), lps, tm.FinishReason, tm.PromptTokens, len(tm.Attempts), s.Err())
					}
				}
			})
		})
	}
}

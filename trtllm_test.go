package tokenpace_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
)

// trtllmValidationError is the body TensorRT-LLM's trtllm-serve answers a
// request its models refuse with, status 400: FastAPI's
// RequestValidationError as a string ({"error": str(exc)},
// tensorrt_llm/serve/openai_server.py, validation_exception_handler),
// whose text echoes the whole request body as the error's input, as
// Python writes a dict.
func trtllmValidationError(msg string, request []byte) string {
	python := strings.NewReplacer(`"`, `'`, `:`, `: `, `,`, `, `, `true`, `True`, `false`, `False`, `null`, `None`)
	return fmt.Sprintf(`{"error":%q}`, fmt.Sprintf("[{'type': 'value_error', 'loc': ('body',), 'msg': 'Value error, %s', 'input': %s, 'ctx': {'error': ValueError('%s')}}]",
		msg, python.Replace(string(bytes.TrimSpace(request))), msg))
}

// TestTensorRTLLMSuffixRefused: trtllm-serve refuses a completions
// request with a suffix, 400, in a validation error that echoes the
// request (openai_protocol.py, CompletionRequest.check_suffix: "suffix is
// not supported"), stream_options and all. The caller gets that request
// error, its message kept, after one request; the stream_options the
// client added, which the echo names, is not taken for what the server
// refused: the next stream to the same server still asks for its usage,
// and gets it.
func TestTensorRTLLMSuffixRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var suffixed, withUsage int
		url, hc, _ := serveCounting(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
			mu.Lock()
			defer mu.Unlock()
			if bytes.Contains(body, []byte(`"suffix"`)) {
				suffixed++
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprint(w, trtllmValidationError("suffix is not supported", body))
				return
			}
			usage := bytes.Contains(body, []byte(`"include_usage":true`))
			if usage {
				withUsage++
			}
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, `data: {"id":"cmpl-1","object":"text_completion","created":1767200000,"model":"m","choices":[{"index":0,"text":" return a + b","token_ids":null,"logprobs":null,"finish_reason":"stop","stop_reason":null,"avg_decoded_tokens_per_iter":null}],"usage":null}`+"\n\n")
			if usage {
				fmt.Fprint(w, `data: {"id":"cmpl-1","object":"text_completion","created":1767200000,"model":"m","choices":[],"usage":{"prompt_tokens":7,"total_tokens":11,"completion_tokens":4,"prompt_tokens_details":{"cached_tokens":0}}}`+"\n\n")
			}
			fmt.Fprint(w, "data: [DONE]\n\n")
		})
		c := tokenpace.NewClient(openaiClient(url, hc))
		p := openai.CompletionNewParams{Model: "m", Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("def add(a, b):\n")},
			Suffix: openai.String("\nprint(add(1, 2))\n"), MaxTokens: openai.Int(16)}
		s := c.NewCompletionStreaming(context.Background(), p)
		for s.Next() {
		}
		s.Close()
		var ae *openai.Error
		if se := checkKind(t, s.Err(), tokenpace.KindRequest); se != nil && (!errors.As(s.Err(), &ae) || ae.StatusCode != 400 || !strings.Contains(ae.Message, "suffix is not supported")) {
			t.Errorf("Err() = %v, want the server's 400 and its message", s.Err())
		}
		if suffixed != 1 {
			t.Errorf("%d requests with the suffix, want 1", suffixed)
		}

		p.Suffix = openai.CompletionNewParams{}.Suffix
		s = c.NewCompletionStreaming(context.Background(), p)
		for s.Next() {
		}
		s.Close()
		if tm := s.Timing(); s.Err() != nil || s.Text() != " return a + b" || withUsage != 1 || !tm.UsageReported || tm.OutputTokens != 4 {
			t.Errorf("the next stream: %q, %v, %d asked for usage, usage %v %d; want the answer, its usage asked for and reported (4 tokens)",
				s.Text(), s.Err(), withUsage, tm.UsageReported, tm.OutputTokens)
		}
	})
}

// TestTensorRTLLMPromptsStreamed: trtllm-serve streams a completions
// request of several prompts as one generator per prompt, merged as their
// chunks come (openai_server.py, openai_completion, merge_generators);
// each prompt's ends with a usage chunk of its own, choices [], counting
// that prompt and its output alone (postprocess_handlers.py,
// completion_stream_post_processor), its choices numbered prompt by
// prompt. The caller gets the usage of the whole request, the prompts'
// tokens and the outputs added up, in whatever order the prompts end.
func TestTensorRTLLMPromptsStreamed(t *testing.T) {
	const m = `"object":"text_completion","created":1767200000,"model":"m"`
	chunk := func(i int, text, finish string) string {
		f := "null"
		if finish != "" {
			f = `"` + finish + `"`
		}
		return fmt.Sprintf(`data: {"id":"cmpl-7",%s,"choices":[{"index":%d,"text":%q,"token_ids":null,"logprobs":null,"finish_reason":%s,"stop_reason":null,"avg_decoded_tokens_per_iter":null}],"usage":null}`+"\n\n", m, i, text, f)
	}
	usage := func(prompt, output int) string {
		return fmt.Sprintf(`data: {"id":"cmpl-7",%s,"choices":[],"usage":{"prompt_tokens":%d,"total_tokens":%d,"completion_tokens":%d,"prompt_tokens_details":{"cached_tokens":0}}}`+"\n\n", m, prompt, prompt+output, output)
	}
	const done = "data: [DONE]\n\n"
	for _, tt := range []struct {
		name           string
		events         []string
		prompt, output int
	}{
		{"the first prompt ends first", []string{chunk(0, " x", ""), chunk(1, " y", ""), chunk(0, " z", "stop"), usage(3, 2), chunk(1, " w", "length"), usage(4, 2), done}, 7, 4},
		{"the second prompt ends first", []string{chunk(0, " x", ""), chunk(1, " y", "stop"), usage(4, 1), chunk(0, " z", "stop"), usage(3, 2), done}, 7, 3},
		{"both end before either usage", []string{chunk(0, " x", "stop"), chunk(1, " y", "stop"), usage(3, 1), usage(4, 1), done}, 7, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				url, hc := serve(t, script("text/event-stream", tt.events...))
				c := tokenpace.NewClient(openaiClient(url, hc))
				p := openai.CompletionNewParams{Model: "m", Prompt: openai.CompletionNewParamsPromptUnion{OfArrayOfStrings: []string{"1 + 1 =", "2 + 2 ="}},
					MaxTokens: openai.Int(2)}
				s := c.NewCompletionStreaming(context.Background(), p)
				for s.Next() {
				}
				s.Close()
				tm, acc := s.Timing(), s.Accumulated()
				if s.Err() != nil || len(acc.Choices) != 2 {
					t.Fatalf("Err() = %v, %d choices; want both, complete", s.Err(), len(acc.Choices))
				}
				if !tm.UsageReported || tm.PromptTokens != tt.prompt || tm.OutputTokens != tt.output ||
					acc.Usage.PromptTokens != int64(tt.prompt) || acc.Usage.CompletionTokens != int64(tt.output) {
					t.Errorf("usage (%v, %d, %d), Accumulated() (%d, %d); want %d prompt and %d output tokens",
						tm.UsageReported, tm.PromptTokens, tm.OutputTokens, acc.Usage.PromptTokens, acc.Usage.CompletionTokens, tt.prompt, tt.output)
				}
			})
		})
	}
}

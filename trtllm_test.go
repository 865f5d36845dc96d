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

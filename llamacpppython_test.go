package tokenpace_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
)

// TestLlamaCppPythonRequestErrors: llama-cpp-python's server answers an
// exception its route raises with 500 (RouteErrorHandler), the request's
// own faults too: two prompts on /v1/completions (an assertion, message
// ""), logprobs of a model loaded without logits_all, a tool_choice
// naming a function the tools do not hold, a body its schema refuses
// (FastAPI's validation error, caught by that handler: a response_format
// of type json_schema). openai-go sent each again, and a breaker counted
// it against a server that is well. They are now the request errors they
// are: 400, sent once, the server's message kept. A failed decode stays a
// server error (500), sent again.
func TestLlamaCppPythonRequestErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fixture := map[string]string{
			"/prompts2/v1/completions":        "llamacpppython-2026-completions-prompts2-500.jsonl",
			"/logprobs/v1/chat/completions":   "llamacpppython-2026-chat-logprobs-500.jsonl",
			"/toolchoice/v1/chat/completions": "llamacpppython-2026-chat-toolchoice-500.jsonl",
			"/decode/v1/chat/completions":     "llamacpppython-2026-chat-decode-500.jsonl",
			"/schema/v1/chat/completions":     "conformance/llama-cpp-python-validation-error-500.jsonl",
		}
		recs := map[string]recording{}
		for path, name := range fixture {
			recs[path] = loadRecording(t, name)
		}
		_, hc, counts := serveCounting(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
			replay(recs[r.URL.Path])(w, r)
		})
		client := func(name string) *tokenpace.Client {
			return tokenpace.NewClient(openai.NewClient(option.WithBaseURL("http://replay.invalid"+name+"/v1/"), option.WithHTTPClient(hc),
				option.WithAPIKey("sk-test-secret"), option.WithMaxRetries(1)))
		}
		ctx := context.Background()
		const model = "qwen2.5-1.5b-instruct"

		s := client("/prompts2").NewCompletionStreaming(ctx, openai.CompletionNewParams{Model: model, MaxTokens: openai.Int(16),
			Prompt: openai.CompletionNewParamsPromptUnion{OfArrayOfStrings: []string{"def add", "class A:"}}})
		for s.Next() {
		}
		_ = s.Close()
		logprobs := chat(model, 64)
		logprobs.Logprobs, logprobs.TopLogprobs = openai.Bool(true), openai.Int(2)
		_, logprobsErr := client("/logprobs").New(ctx, logprobs)
		tc := chat(model, 64)
		tc.Tools = []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{Name: "get_weather"})}
		tc.ToolChoice = openai.ToolChoiceOptionFunctionToolChoice(openai.ChatCompletionNamedToolChoiceFunctionParam{Name: "get_time"})
		_, toolChoiceErr := client("/toolchoice").New(ctx, tc)
		_, decodeErr := client("/decode").New(ctx, chat(model, 64))
		schema := client("/schema").NewStreaming(ctx, chat(model, 64))
		for schema.Next() {
		}
		_ = schema.Close()

		for _, c := range []struct {
			name, path string
			err        error
			kind       tokenpace.ErrorKind
			status     int
			message    string
			requests   int
		}{
			{"two prompts", "/prompts2/v1/completions", s.Err(), tokenpace.KindRequest, http.StatusBadRequest, "", 1},
			{"logprobs", "/logprobs/v1/chat/completions", logprobsErr, tokenpace.KindRequest, http.StatusBadRequest,
				"logprobs is not supported for models created with logits_all=False", 1},
			{"tool_choice", "/toolchoice/v1/chat/completions", toolChoiceErr, tokenpace.KindRequest, http.StatusBadRequest,
				"Tool choice 'get_time' not found in tools.", 1},
			{"response_format json_schema", "/schema/v1/chat/completions", schema.Err(), tokenpace.KindRequest, http.StatusBadRequest,
				loadConformance(t)["llama-cpp-python-validation-error-500"].Expect.ErrorMessage, 1},
			{"decode", "/decode/v1/chat/completions", decodeErr, tokenpace.KindRequest, http.StatusInternalServerError, "llama_decode returned 1", 2},
		} {
			var se *tokenpace.StreamError
			var ae *openai.Error
			if !errors.As(c.err, &se) || se.Kind != c.kind || !errors.As(c.err, &ae) || ae.StatusCode != c.status || ae.Message != c.message {
				t.Errorf("%s: err %v; want a %v %d with the message %q", c.name, c.err, c.kind, c.status, c.message)
			}
			if n := counts.of(c.path); n != c.requests {
				t.Errorf("%s: %d requests, want %d", c.name, n, c.requests)
			}
		}
	})
}

package tokenpace_test

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
)

// TestAzureFoundryRefusesStreamOptions: Azure AI Foundry's Models
// (Azure AI Model Inference, the serverless deployments of Llama, Mistral
// and other models than OpenAI's) refuse a parameter the model does not
// take unless the request's extra-parameters header says pass-through,
// and the stream_options the client adds to ask for usage is one: a
// serverless Llama 3 answers 400, {"detail": "Extra parameters
// ['stream_options'] are not allowed when extra-parameters is not set or
// set to be 'error'. …"} (BerriAI/litellm#9800; langchain-ai/langchain#29679
// for the same words about n), and Mistral small 2503 400 with the
// model's own 422 as the text of its message, extra_forbidden at
// ["body","stream_options","include_usage"] (BerriAI/litellm#11696). Bare
// openai-go sends no stream_options and gets the answer: each request is
// sent again at once without it, the answer read, its output deltas
// counted for usage.
func TestAzureFoundryRefusesStreamOptions(t *testing.T) {
	for name, refusal := range map[string]string{
		"llama":   `{"detail":"Extra parameters ['stream_options'] are not allowed when extra-parameters is not set or set to be 'error'. Set extra-parameters to 'pass-through' to pass to the model."}`,
		"mistral": `{"error":{"code":"Invalid input","message":"{\"detail\":[{\"type\":\"extra_forbidden\",\"loc\":[\"body\",\"stream_options\",\"include_usage\"],\"msg\":\"Extra inputs are not permitted\",\"input\":true,\"url\":\"https://errors.pydantic.dev/2.10/v/extra_forbidden\"}]}","status":422}}`,
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var sent []bool
				url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					b, _ := io.ReadAll(r.Body)
					sent = append(sent, strings.Contains(string(b), "stream_options"))
					if sent[len(sent)-1] {
						w.Header().Set("Content-Type", "application/json")
						w.WriteHeader(http.StatusBadRequest)
						_, _ = io.WriteString(w, refusal)
						return
					}
					w.Header().Set("Content-Type", "text/event-stream")
					_, _ = io.WriteString(w, chunk("c", "Hello", "", "")+chunk("c", " there.", "stop", "")+"data: [DONE]\n\n")
				}))
				c := tokenpace.NewClient(openai.NewClient(option.WithBaseURL(url), option.WithHTTPClient(hc), option.WithAPIKey("x"), option.WithMaxRetries(0)))
				s := c.NewStreaming(context.Background(), chat("Meta-Llama-3-70B-Instruct", 16))
				text := readAll(t, s)
				tm := s.Timing()
				if tm.Err != nil || text != "Hello there." {
					t.Fatalf("read %q, Err %v; want %q and nil", text, tm.Err, "Hello there.")
				}
				if got := statuses(tm); !slices.Equal(got, []int{400, 200}) || !slices.Equal(sent, []bool{true, false}) {
					t.Errorf("HTTP statuses %v, stream_options sent %v; want [400 200] and [true false]", got, sent)
				}
				if tm.UsageReported || tm.OutputTokens != 2 {
					t.Errorf("usage reported %v, %d output tokens; want the 2 output deltas counted", tm.UsageReported, tm.OutputTokens)
				}
			})
		})
	}
}

// TestAzureFoundryRefusesMaxCompletionTokens: a caller that sets
// max_completion_tokens, as openai-go's newer models want, gets the
// max_tokens the client adds beside it. Azure AI Foundry's Models refuse,
// in the same words, every field the deployed model does not take (see
// TestAzureFoundryRefusesStreamOptions): a model that knows max_tokens
// alone refuses max_completion_tokens. The caller got that 400, as through
// bare openai-go, though max_tokens held its limit; the request is now
// sent again at once without the field, the answer read within the limit.
func TestAzureFoundryRefusesMaxCompletionTokens(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var sent []string
		url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			sent = append(sent, string(b))
			if strings.Contains(string(b), `"max_completion_tokens"`) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				_, _ = io.WriteString(w, `{"detail":"Extra parameters ['max_completion_tokens'] are not allowed when extra-parameters is not set or set to be 'error'. Set extra-parameters to 'pass-through' to pass to the model."}`)
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, chunk("c", "Hello", "", "")+chunk("c", " there.", "length", "")+"data: [DONE]\n\n")
		}))
		c := tokenpace.NewClient(openai.NewClient(option.WithBaseURL(url), option.WithHTTPClient(hc), option.WithAPIKey("x"), option.WithMaxRetries(0)))
		p := openai.ChatCompletionNewParams{Model: "Meta-Llama-3.1-8B-Instruct", MaxCompletionTokens: openai.Int(2),
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Say hello.")}}
		s := c.NewStreaming(context.Background(), p)
		text := readAll(t, s)
		tm := s.Timing()
		if tm.Err != nil || text != "Hello there." {
			t.Fatalf("read %q, Err %v; want %q and nil", text, tm.Err, "Hello there.")
		}
		if got := statuses(tm); !slices.Equal(got, []int{400, 200}) || len(sent) != 2 ||
			strings.Contains(sent[1], "max_completion_tokens") || !strings.Contains(sent[1], `"max_tokens":2`) {
			t.Errorf("HTTP statuses %v, bodies sent %q; want [400 200], the second with max_tokens 2 alone", got, sent)
		}
	})
}

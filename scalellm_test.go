package tokenpace_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
)

// TestScaleLLMOverloadSentAgain: ScaleLLM's OpenAI server answers every
// failed status of its engine with 400 and {"error": {"message", "code"}},
// its scheduler full among them ("No available resources to schedule
// request", code 5, RESOURCE_EXHAUSTED: vectorch-ai/ScaleLLM
// scalellm/serve/streaming_response.py, SafeStreamingResponse;
// src/handlers/llm_handler.cpp, LLMHandler::schedule). The caller got it
// as the request's fault: not sent again, and a Router did not try its
// next route. It is now the server's failure: sent again, and a Router
// whose first route stays full gets its answer from the next. A refusal
// of the request (code 3, INVALID_ARGUMENT) stays a 400, sent once.
func TestScaleLLMOverloadSentAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		full := loadConformance(t)["scalellm-schedule-full-400-event-stream"].recording
		var n atomic.Int64
		url, hc, counts := serveCounting(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
			switch {
			case strings.HasPrefix(r.URL.Path, "/invalid/"):
				w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write([]byte(`{"error":{"message":"Prompt is too long","code":3}}`))
			case strings.HasPrefix(r.URL.Path, "/full/") || n.Add(1) == 1:
				replay(full)(w, r)
			default:
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = w.Write([]byte("data: {\"id\":\"chatcmpl-a\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hello.\"},\"finish_reason\":null}]}\n\n" +
					"data: {\"id\":\"chatcmpl-a\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"))
			}
		})
		oc := func(base string) *openai.Client {
			c := openai.NewClient(option.WithBaseURL(base), option.WithHTTPClient(hc),
				option.WithAPIKey("sk-test-secret"), option.WithMaxRetries(1))
			return &c
		}
		client := func(base string) *tokenpace.Client { return tokenpace.NewClient(*oc(base)) }
		ctx := context.Background()
		const model = "meta-llama/Llama-3.1-8B-Instruct"

		s := client(url).NewStreaming(ctx, chat(model, 64))
		if text := readAll(t, s); s.Err() != nil || text != "Hello." {
			t.Fatalf("text %q, Err() = %v; want the answer of the request sent again", text, s.Err())
		}

		r, err := tokenpace.NewRouter(client("http://replay.invalid/full/v1/"), tokenpace.Policy{},
			tokenpace.Route{Name: "full", Model: model}, tokenpace.Route{Name: "next", Model: model, Client: oc(url)})
		if err != nil {
			t.Fatal(err)
		}
		s = r.NewStreaming(ctx, chat(model, 64))
		if text := readAll(t, s); s.Err() != nil || text != "Hello." {
			t.Errorf("Router: text %q, Err() = %v; want the next route's answer", text, s.Err())
		}

		s = client("http://replay.invalid/invalid/v1/").NewStreaming(ctx, chat(model, 64))
		readAll(t, s)
		var ae *openai.Error
		if !errors.As(s.Err(), &ae) || ae.StatusCode != http.StatusBadRequest || counts.of("/invalid/v1/chat/completions") != 1 {
			t.Errorf("code 3: Err() = %v, %d requests; want a 400, sent once", s.Err(), counts.of("/invalid/v1/chat/completions"))
		}
	})
}

package tokenpace_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"

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
		invalid := func(w http.ResponseWriter, r *http.Request) bool {
			if !strings.HasPrefix(r.URL.Path, "/invalid/") {
				return false
			}
			w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error":{"message":"Prompt is too long","code":3}}`))
			return true
		}
		const model = "meta-llama/Llama-3.1-8B-Instruct"
		oc, counts := wantOverloadSentAgain(t, "scalellm-schedule-full-400-event-stream", model, invalid)

		s := tokenpace.NewClient(*oc("http://replay.invalid/invalid/v1/")).NewStreaming(context.Background(), chat(model, 64))
		readAll(t, s)
		var ae *openai.Error
		if !errors.As(s.Err(), &ae) || ae.StatusCode != http.StatusBadRequest || counts.of("/invalid/v1/chat/completions") != 1 {
			t.Errorf("code 3: Err() = %v, %d requests; want a 400, sent once", s.Err(), counts.of("/invalid/v1/chat/completions"))
		}
	})
}

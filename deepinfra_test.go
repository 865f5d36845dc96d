package tokenpace_test

import (
	"context"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
)

// TestDeepInfraInputTooLongNotRetried: DeepInfra answers a prompt longer
// than its model's input with 500 (langchain-ai/langchain#25671).
// openai-go sent it three times, each refused the same, and a breaker of
// one failure opened on a server that was well. The caller now gets the
// request error it is: status 400 with the server's message, one request
// per call, and the breaker stays closed.
func TestDeepInfraInputTooLongNotRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var fx conformance
		fx.Reads = readFixture(t, "testdata/conformance/deepinfra-input-too-long-500.jsonl", &fx)
		wantSentAndCounted(t, func(w http.ResponseWriter, r *http.Request, _ []byte) { replay(fx.recording)(w, r) },
			"http://replay.invalid/v1/openai/", "/v1/openai/chat/completions", fx.Request.Body.Model,
			http.StatusBadRequest, fx.Expect.ErrorMessage, 1, false)
	})
}

// TestDeepInfraErrorFrameKept: DeepInfra refuses a streamed request inside
// its 200 event stream with one event of error_type and error_message,
// the message a JSON text of an error object. The caller got "stream
// truncated: no [DONE] event", the server's message lost, and a breaker
// counted the refusal against a server that was well. It now gets the
// server's message under status 400, and the breaker stays closed.
func TestDeepInfraErrorFrameKept(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wantRefusalsNotCounted(t, "deepinfra-completions-error-type-frame", http.StatusBadRequest, func(r *tokenpace.Router, model string) error {
			s := r.NewCompletionStreaming(context.Background(), openai.CompletionNewParams{
				Model: openai.CompletionNewParamsModel(model), Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("def add")}})
			for s.Next() {
			}
			_ = s.Close()
			return s.Err()
		})
	})
}

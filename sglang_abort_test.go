package tokenpace_test

import (
	"context"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
)

// TestSGLangRequestErrorInStream replays SGLang refusing a request in its
// scheduler once its 200 event stream has begun: a structured output asked
// of a server without a grammar backend is aborted with status 400, sent as
// the stream's first event, an error object whose type is the status's
// name, "BAD_REQUEST", and whose code is 400 (grammar_manager.py,
// process_req_with_grammar; schedule_batch.py, set_finish_with_abort;
// serving_chat.py, _generate_chat_stream). The caller gets the message with
// that status; a Router goes on to its next route and its breaker, the
// server being well, stays closed. The scheduler's own failure in the same
// shape, a request it cannot fit in memory ("INTERNAL_SERVER_ERROR", 500),
// is still counted.
func TestSGLangRequestErrorInStream(t *testing.T) {
	wantRelayedRefusal(t, "sglang-grammar-abort-400-in-stream", "sglang-oom-abort-status-error", http.StatusBadRequest)
}

// TestSGLangCompletionsRequestErrorInStream: the same refusal on
// /v1/completions (serving_completions.py, _generate_completion_stream)
// reaches the caller with its status 400.
func TestSGLangCompletionsRequestErrorInStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fx := loadConformance(t)["sglang-completions-grammar-abort-400"]
		url, hc := serve(t, replay(fx.recording))
		c := tokenpace.NewClient(openaiClient(url, hc))
		s := c.NewCompletionStreaming(context.Background(), openai.CompletionNewParams{
			Model:  openai.CompletionNewParamsModel(fx.Request.Body.Model),
			Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("def add")}})
		got := readCompletionStream(s)
		if !isErrorEvent(got.err, http.StatusBadRequest, fx.Expect.ErrorMessage) || got.text != "" {
			t.Errorf("text %q, err %v; want an error event with the server's message and status 400", got.text, got.err)
		}
	})
}

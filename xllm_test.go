package tokenpace_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
)

// TestXllmRefusalsNotCounted: xLLM sends a streamed request's 200 headers
// before it looks at the request, and writes a refusal as its message
// alone, a bare line of text that ends the body (jd-opensource/xllm
// xllm/api_service/stream_call.h, StreamCall::finish_with_error). The
// format drops such a line: the caller got "stream truncated" with the
// message lost, and a breaker of one failure opened on a server that was
// well after one prompt too long or one wrong model name. The caller now
// gets the server's words with the status they stand for, and the
// breaker stays closed.
func TestXllmRefusalsNotCounted(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		call   func(*testing.T) func(*tokenpace.Router, string) error
	}{
		{"xllm-model-not-supported-bare-text-200", http.StatusNotFound, chatErr},
		{"xllm-completions-prompt-too-long-bare-text-200", http.StatusBadRequest, completionErr},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { wantRefusalsNotCounted(t, tc.name, tc.status, tc.call(t)) })
		})
	}
}

// TestXllmLimitReadsAs429: xLLM's limit of concurrent requests, written
// bare into its 200 stream as the other refusals are, reads as status
// 429 with the server's words (before: "stream truncated", no message).
func TestXllmLimitReadsAs429(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var fx conformance
		fx.Reads = readFixture(t, "testdata/conformance/xllm-concurrency-limit-bare-text-200.jsonl", &fx)
		url, hc := serve(t, byModel(map[string]http.Handler{fx.Request.Body.Model: replay(fx.recording)}))
		c := tokenpace.NewClient(openaiClient(url, hc))
		s := c.NewStreaming(context.Background(), chat(fx.Request.Body.Model, 64))
		readAll(t, s)
		var ae *openai.Error
		if !errors.As(s.Err(), &ae) || ae.StatusCode != http.StatusTooManyRequests || ae.Message != fx.Expect.ErrorMessage {
			t.Errorf("Err() = %v; want status 429 with the server's message %q", s.Err(), fx.Expect.ErrorMessage)
		}
	})
}

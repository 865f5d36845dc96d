package tokenpace_test

import (
	"net/http"
	"testing"
	"testing/synctest"

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
		wantStatus(t, "xllm-concurrency-limit-bare-text-200", http.StatusTooManyRequests)
	})
}

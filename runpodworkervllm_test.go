package tokenpace_test

import (
	"net/http"
	"testing"
	"testing/synctest"
)

// TestWorkerVLLMRefusalNotCounted: RunPod's worker-vllm, since it proxies
// to `vllm serve`, relays vLLM's 400 (max_tokens past the model's
// context) as its own error object under 200, type "worker_error", its
// message "vLLM returned HTTP 400: " and vLLM's body as text. The caller
// got that text as the message and a breaker of one failure opened on a
// route that was well. It now gets vLLM's own message and status 400,
// which a breaker does not count.
func TestWorkerVLLMRefusalNotCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wantRefusalsNotCounted(t, "runpod-worker-vllm-serve-400-as-worker-error", http.StatusBadRequest, chatErr(t))
	})
}

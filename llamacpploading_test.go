package tokenpace_test

import (
	"net/http"
	"testing"
	"testing/synctest"
)

// TestLlamaCppLoadingModel replays llama-server's answer while it loads
// its model, recorded live: 503 "Loading model" before any event
// (ggml-org/llama.cpp tools/server/server-http.cpp,
// middleware_server_state). The server is not ready, not the request
// wrong: openai-go sends it again (three requests with two retries) and
// the breaker counts it, so a server that stays loading is left alone.
func TestLlamaCppLoadingModel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fx := loadConformance(t)["llamacpp-2026-08-loading-model-503"]
		wantSentAndCounted(t, func(w http.ResponseWriter, r *http.Request, _ []byte) { replay(fx.recording)(w, r) },
			"http://replay.invalid/v1/", "/v1/chat/completions", "x", http.StatusServiceUnavailable, "Loading model", 3, true)
	})
}

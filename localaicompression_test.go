package tokenpace_test

import (
	"net/http"
	"testing"
	"testing/synctest"
)

// TestLocalAICompressionOverflow replays LocalAI compressing a chat's
// conversation again after a round of its own MCP calls, inside the 200
// stream: a conversation over the model's context even compressed is
// the request's, 413 before a stream (core/http/middleware/
// compression.go, CompressChatRequest), and inside it an error event
// typed "context_compression_error" whose message begins with that
// status, "code=413, message=…" (core/http/endpoints/openai/chat.go).
// The caller gets the message with status 413 and the breaker stays
// closed; before, the status was 200 and a breaker of one failure opened.
func TestLocalAICompressionOverflow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wantRefusalsNotCounted(t, "localai-chat-mcp-compression-overflow-error", http.StatusRequestEntityTooLarge, chatErr(t))
	})
}

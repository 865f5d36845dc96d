package tokenpace

import (
	"testing"

	"github.com/tokenpace/tokenpace/internal/codec"
)

// TestOllamaStatus: only a Responses error of code "api_error" whose
// message is one of Ollama's refusals of a request has a status: a model
// not found (404), a capability the model lacks or a name that is none
// (400). The server's own failures, another code, and a chat server's
// error object in the same words have none.
func TestOllamaStatus(t *testing.T) {
	for _, tt := range []struct {
		e    codec.ServerError
		want int
	}{
		{codec.ServerError{Code: "api_error", Message: "model 'qwen3:8b' not found"}, 404},
		{codec.ServerError{Code: "api_error", Message: `model "qwen3:8b" not found, try pulling it first`}, 404},
		{codec.ServerError{Code: "api_error", Message: "registry.ollama.ai/library/gemma3:4b does not support tools"}, 400},
		{codec.ServerError{Code: "api_error", Message: "registry.ollama.ai/library/gemma3:4b does not support tools\nthinking"}, 400},
		{codec.ServerError{Code: "api_error", Message: `"llama3.2:3b" does not support thinking`}, 400},
		{codec.ServerError{Code: "api_error", Message: "registry.ollama.ai/library/qwen3:8b does not support thinking. Pull the model again to get the latest version with full thinking support"}, 400},
		{codec.ServerError{Code: "api_error", Message: "invalid model name"}, 400},
		{codec.ServerError{Code: "api_error", Message: "model requires more system memory (21.4 GiB) than is available (15.2 GiB)"}, 0},
		{codec.ServerError{Code: "api_error", Message: "the upstream does not support streaming"}, 0},
		{codec.ServerError{Code: "api_error", Message: "gemma3:4b does not support parallel tool calls"}, 0},
		{codec.ServerError{Code: "api_error", Message: "web search failed: 502 Bad Gateway"}, 0},
		{codec.ServerError{Code: "server_error", Message: "model 'qwen3:8b' not found"}, 0},
		{codec.ServerError{Code: "rate_limit_exceeded", Message: "you've reached your hourly usage limit, please wait or upgrade to continue"}, 0},
		{codec.ServerError{Raw: `{"code":"api_error","message":"model 'qwen3:8b' not found"}`, Code: "api_error", Message: "model 'qwen3:8b' not found"}, 0},
	} {
		if got := ollamaStatus(&tt.e); got != tt.want {
			t.Errorf("ollamaStatus(%q %q) = %d, want %d", tt.e.Code, tt.e.Message, got, tt.want)
		}
	}
}

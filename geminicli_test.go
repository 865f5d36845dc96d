package tokenpace_test

import (
	"net/http"
	"testing"
	"testing/synctest"
)

// TestGeminiCLIRefusalNotCounted: gemini-cli-openai writes Code Assist's
// 403 as the answer's text, "Error: Stream request failed: 403"
// (GewoonJaap/gemini-cli-openai#176). The caller must get status 403
// with that message, and a breaker must not count it.
func TestGeminiCLIRefusalNotCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wantRefusalsNotCounted(t, "gemini-cli-openai-403-error-as-content-stop", http.StatusForbidden, chatErr(t))
	})
}

// TestGeminiCLIQuotaCounted: the same bridge's 429, Code Assist's quota
// spent after four retries, is the route's: the caller gets status 429,
// and a breaker of one failure opens on it.
func TestGeminiCLIQuotaCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wantFailureCounted(t, "gemini-cli-openai-429-after-retries-as-content", http.StatusTooManyRequests, chatErr(t))
	})
}

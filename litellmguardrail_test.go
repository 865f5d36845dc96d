package tokenpace_test

import (
	"net/http"
	"testing"
	"testing/synctest"
)

// TestLiteLLMGuardrailBlockNotCounted: LiteLLM's proxy writes a
// guardrail's block of an answer it had begun to release as its error
// object of type "None", with the code "500" and Prompt Security's words
// (a StreamingCallbackError, which has no status) or the code "400" (the
// Generic Guardrail API's GuardrailRaisedException), and since #39521 of
// type "invalid_request_error" with Prompt Security's words. The caller must get
// the guardrail's message, with status 400 where the code names it (a
// code of 500 in a 200 stream names none), and a breaker must not count
// the policy's block against the route.
func TestLiteLLMGuardrailBlockNotCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wantRefusalsNotCounted(t, "litellm-prompt-security-blocked-500-after-text", http.StatusOK, chatErr(t))
	})
	synctest.Test(t, func(t *testing.T) {
		wantRefusalsNotCounted(t, "litellm-guardrail-action-blocked-400-after-text", http.StatusBadRequest, chatErr(t))
	})
	synctest.Test(t, func(t *testing.T) {
		wantRefusalsNotCounted(t, "litellm-prompt-security-blocked-400-invalid-request-after-text", http.StatusBadRequest, chatErr(t))
	})
}

// TestLiteLLMProxyFailureCounted: the proxy's own failure mid-stream, an
// error object of the same shape whose type is null, still counts against
// the route; so does a guardrail that broke the action protocol, though
// its exception carries the status 400.
func TestLiteLLMProxyFailureCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wantFailureCounted(t, "litellm-error-frame-no-done", http.StatusOK, chatErr(t))
	})
	synctest.Test(t, func(t *testing.T) {
		wantFailureCounted(t, "litellm-guardrail-action-protocol-violation-after-text", http.StatusBadRequest, chatErr(t))
	})
}

package tokenpace_test

import (
	"net/http"
	"testing"
	"testing/synctest"
)

// TestCancelledIsTheServers: Gemini's backend cancels a request itself
// under heavy use and answers 499 CANCELLED, reason "backendError"; the
// same request sent again is served
// (testdata/conformance/gemini-499-cancelled-backend-error.jsonl). A 499
// is the status nginx logs for a client that closed its request, and a
// client that closed it reads no answer: one that reads a 499 was
// cancelled by the server or a relay. Read as the caller's 4xx, it was
// sent once and a breaker never counted it; it is now sent again as a
// 503 is, and counted against the route.
func TestCancelledIsTheServers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fx := fixture(t, "gemini-499-cancelled-backend-error")
		wantSentAndCounted(t, func(w http.ResponseWriter, r *http.Request, _ []byte) { replay(fx.recording)(w, r) },
			"http://replay.invalid/v1/", "/v1/chat/completions", fx.Request.Body.Model,
			499, fx.Expect.ErrorMessage, 3, true)
	})
}

// TestCancelledMarkedNotToRetry: a 499 whose server marks it not to be
// sent again (X-Should-Retry: false) stays the caller's: sent once, not
// counted.
func TestCancelledMarkedNotToRetry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := func(w http.ResponseWriter, r *http.Request, _ []byte) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("X-Should-Retry", "false")
			w.WriteHeader(499)
			_, _ = w.Write([]byte(`{"error":{"code":499,"message":"Request cancelled."}}`))
		}
		wantSentAndCounted(t, h, "http://replay.invalid/v1/", "/v1/chat/completions", "m", 499, "Request cancelled.", 1, false)
	})
}

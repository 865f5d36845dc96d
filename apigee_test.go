package tokenpace_test

import (
	"net/http"
	"testing"
	"testing/synctest"
)

// TestApigeeThreatRefusalNotRetried: Apigee refuses a prompt past the
// limits of a JSONThreatProtection policy with 500 and its fault
// (steps.jsonthreatprotection.ExecutionFailed). openai-go sent it three
// times, each refused the same, with no message read from the fault, and
// a breaker of one failure opened on a route that was well. The caller
// now gets status 400 with the policy's words, one request per call, and
// the breaker stays closed; Apigee's timeout of its target stays the
// route's failure, sent again and counted.
func TestApigeeThreatRefusalNotRetried(t *testing.T) {
	t.Run("threat protection", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			fx := fixture(t, "apigee-json-threat-protection-500")
			wantSentAndCounted(t, func(w http.ResponseWriter, r *http.Request, _ []byte) { replay(fx.recording)(w, r) },
				"http://replay.invalid/v1/", "/v1/chat/completions", fx.Request.Body.Model,
				http.StatusBadRequest, fx.Expect.ErrorMessage, 1, false)
		})
	})
	t.Run("target timeout", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			fx := fixture(t, "apigee-gateway-timeout-504-fault")
			wantSentAndCounted(t, func(w http.ResponseWriter, r *http.Request, _ []byte) { replay(fx.recording)(w, r) },
				"http://replay.invalid/v1/", "/v1/chat/completions", fx.Request.Body.Model,
				http.StatusGatewayTimeout, fx.Expect.ErrorMessage, 3, true)
		})
	})
}

package tokenpace_test

import (
	"net/http"
	"testing"
	"testing/synctest"
)

// TestFlexCapacityIsTheServers: Groq answers a request of its flex tier
// with 498, a status of its own in the 4xx range, when the tier is out of
// capacity; its docs say to retry it with back-off
// (testdata/conformance/groq-flex-498-capacity-exceeded.jsonl). Read as
// the caller's 4xx, it was sent once and a breaker never counted it: a
// route whose tier answers 498 to every request stayed closed. It is now
// sent again as a 503 is, and counted against the route.
func TestFlexCapacityIsTheServers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var fx conformance
		fx.Reads = readFixture(t, "testdata/conformance/groq-flex-498-capacity-exceeded.jsonl", &fx)
		wantSentAndCounted(t, func(w http.ResponseWriter, r *http.Request, _ []byte) { replay(fx.recording)(w, r) },
			"http://replay.invalid/v1/", "/v1/chat/completions", fx.Request.Body.Model,
			498, fx.Expect.ErrorMessage, 3, true)
	})
}

// TestOther498IsTheCallers: a 498 that is not Groq's capacity_exceeded
// (ArcGIS and some gateways answer 498 for an expired or invalid token)
// stays the caller's: sent once, not counted.
func TestOther498IsTheCallers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := func(w http.ResponseWriter, r *http.Request, _ []byte) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(498)
			_, _ = w.Write([]byte(`{"error":{"code":498,"message":"Invalid token."}}`))
		}
		wantSentAndCounted(t, h, "http://replay.invalid/v1/", "/v1/chat/completions", "m", 498, "Invalid token.", 1, false)
	})
}

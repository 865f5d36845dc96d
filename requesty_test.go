package tokenpace_test

import (
	"net/http"
	"testing"
	"testing/synctest"
)

// TestFailedDependencyIsTheServers: Requesty's router answers 424 Failed
// Dependency when its provider's answer is unusable ("Provider response
// missing usage", "Invalid provider response format"), a transient
// failure of the provider that its docs say to retry
// (testdata/conformance/requesty-424-provider-response-missing-usage.jsonl).
// Read as the caller's 4xx, it was sent once and a breaker never counted
// it: a route that answers 424 to every request stayed closed. It is now
// sent again as a 5xx is, and counted against the route.
func TestFailedDependencyIsTheServers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var fx conformance
		fx.Reads = readFixture(t, "testdata/conformance/requesty-424-provider-response-missing-usage.jsonl", &fx)
		// The provider's failure is sent again, twice, and counts against
		// the route.
		wantSentAndCounted(t, func(w http.ResponseWriter, r *http.Request, _ []byte) { replay(fx.recording)(w, r) },
			"http://replay.invalid/v1/", "/v1/chat/completions", fx.Request.Body.Model,
			http.StatusFailedDependency, fx.Expect.ErrorMessage, 3, true)
	})
}

package tokenpace_test

import (
	"net/http"
	"testing"
	"testing/synctest"
)

// TestLMStudioUnexpectedEndpointNotCounted: LM Studio's server answers a
// path it does not serve with status 200 and
// {"error":"Unexpected endpoint or method. (POST /completions)"}, not 404
// ("Returning 200 anyway", its log says; lmstudio-ai/lmstudio-bug-tracker
// #618, #2085): an editor's completions client whose base URL lacks /v1,
// or that asks a path of another server's (/v1/completion, /infill,
// /v1/fim/completions), meets it on its first request. The caller must
// get status 404 with the server's words, and a breaker must not count a
// route's wrong path as the server's failure, as it does not count a 404.
func TestLMStudioUnexpectedEndpointNotCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wantRefusalsNotCounted(t, "lmstudio-unexpected-endpoint-200", http.StatusNotFound, completionErr(t))
	})
}

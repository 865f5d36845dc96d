package tokenpace_test

import (
	"net/http"
	"testing"
	"testing/synctest"
)

// TestAntigravity2apiQuotaReadsAsOne: antigravity2api writes its
// upstream's 429 as the answer's text, "错误: API请求失败 (429): " and
// Google's body, then finishes "stop" (liuw1535/antigravity2api-nodejs
// src/server/index.js, the chat route's catch). The caller got that text
// as a whole answer; it now gets the error with status 429, the route's
// quota.
func TestAntigravity2apiQuotaReadsAsOne(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wantStatus(t, "antigravity2api-upstream-429-error-as-content", http.StatusTooManyRequests)
	})
}

package wire

import (
	"fmt"
	"net/http"
)

// Quotas spent.
//
// Some servers answer a request of an account that has run out of what it
// paid for with 429, the status of a rate limit, though waiting does not
// help: the answer stays the same until the account is paid for. Zhipu's
// and Z.ai's GLM API answer so with business code "1113" ("余额不足或无可用
// 资源包,请充值。", "Insufficient balance or no resource package":
// docs.z.ai/api-reference/api-code), OpenAI with "insufficient_quota"
// (platform.openai.com/docs/guides/error-codes). openai-go sends every
// 429 again, twice by default, each after its back-off: time spent out
// of the caller's budget before it learns why.

// quotaCodes are the error codes, or types, of the 429s of QuotaSpent.
var quotaCodes = map[string]bool{"1113": true, "insufficient_quota": true}

// QuotaSpent returns res marked not to be sent again (X-Should-Retry:
// false) when it is a 429 whose error object says the account's balance
// or quota is spent. It reads the body, bounded already (BoundErrorBody),
// and puts it back. A Router's breaker still counts it: the route will
// answer the same to every request until the account is paid for.
func QuotaSpent(res *http.Response) *http.Response {
	e, ok := errorOf(res, http.StatusTooManyRequests)
	if !ok || !quotaCodes[e.Type] && !quotaCodes[fmt.Sprint(e.Code)] {
		return res
	}
	res.Header = res.Header.Clone()
	if res.Header == nil {
		res.Header = http.Header{}
	}
	res.Header.Set("X-Should-Retry", "false")
	return res
}

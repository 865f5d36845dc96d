package wire

import "net/http"

// FailedDependency returns res marked to be sent again (X-Should-Retry:
// true) when its status is 424 Failed Dependency: the request failed
// because one it depended on failed (RFC 4918, section 11.4), a gateway's
// upstream, not the request itself. Requesty's router answers so when its
// provider's answer is unusable, "Invalid provider response format" or
// "Provider response missing usage", a transient failure its docs say to
// retry (docs.requesty.ai/features/error-codes). openai-go sends a 4xx
// other than 408, 409 and 429 only once; a 5xx, which this is in all but
// its number, it sends again after its back-off.
func FailedDependency(res *http.Response) *http.Response {
	if res != nil && res.StatusCode == http.StatusFailedDependency && res.Header.Get("X-Should-Retry") == "" {
		res.Header = res.Header.Clone()
		if res.Header == nil {
			res.Header = http.Header{}
		}
		res.Header.Set("X-Should-Retry", "true")
	}
	return res
}

package wire

import "net/http"

// markRetry sets res's X-Should-Retry header, which openai-go reads
// before its own rules (internal/requestconfig, shouldRetry): "true" sends
// the request again, "false" never. The header map is cloned first: the
// response's map may be shared with a caller's middleware or a recording.
func markRetry(res *http.Response, retry bool) *http.Response {
	res.Header = res.Header.Clone()
	if res.Header == nil {
		res.Header = http.Header{}
	}
	if retry {
		res.Header.Set("X-Should-Retry", "true")
	} else {
		res.Header.Set("X-Should-Retry", "false")
	}
	return res
}

// RetryMark reads h, the header of an answer, as openai-go reads its
// X-Should-Retry: retry is whether it marks the request to be sent again,
// marked whether it says either ("true" or "false"). The mark is
// markRetry's, set where the status alone does not tell whose the
// failure is (FailedDependency, CapacityExceeded), or the server's own:
// a breaker reads it the same way, the request's when it is not to be
// sent again, the server's when it is.
func RetryMark(h http.Header) (retry, marked bool) {
	switch h.Get("X-Should-Retry") {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

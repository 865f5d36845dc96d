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

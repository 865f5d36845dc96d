package wire

import (
	"net/http"
)

// Cloudflare AI Gateway passes a provider's error answer through as the
// provider sent it, status and body. But when the provider gave it no
// answer at all, it answers with its own error, under status 400, the
// status of a request error: {"success": false, "result": [],
// "messages": [], "error": [{"code": 2005, "message": "Failed to get
// response from provider"}]} (cloudflare/ai#436, a transient failure of
// the provider; #611, a route whose provider was never called). openai-go
// does not send a 400 again, and a breaker does not count it against the
// route.

// cloudflareNoResponse is the code of AI Gateway's error for a request its
// provider did not answer.
const cloudflareNoResponse = "2005"

// CloudflareUpstreamFailure reports whether res is Cloudflare AI
// Gateway's answer to a request its provider did not answer: status 400,
// the error's code 2005, as BoundErrorBody made its body (an error object
// of its first error). Sent again, such a request is answered once the
// provider is back; it says nothing against the request. It reads the
// body, bounded already, and puts it back.
func CloudflareUpstreamFailure(res *http.Response) bool {
	e, ok := errorOf(res, http.StatusBadRequest)
	return ok && e.Code == cloudflareNoResponse
}

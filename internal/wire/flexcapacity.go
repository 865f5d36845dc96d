package wire

import "net/http"

// StatusCapacityExceeded is the status of its own, 498, with which Groq
// refuses a request of its flex service tier while the tier is out of
// capacity: "requests will fail quickly with status 498 and error
// capacity_exceeded. Add jittered backoff and retries"
// (console.groq.com/docs/flex-processing; console.groq.com/docs/errors,
// "498 Custom: Flex Tier Capacity Exceeded").
const StatusCapacityExceeded = 498

// CapacityExceeded returns res marked to be sent again (X-Should-Retry:
// true) when it is Groq's 498 whose error code is capacity_exceeded: the
// server out of capacity, in all but its number a 503. openai-go sends a
// 4xx other than 408, 409 and 429 only once. Any other 498 (ArcGIS and
// some gateways answer 498 for an invalid token) is left as it is, the
// caller's. Only a 498 is read, so it costs nothing on any other
// response: its error object, as errorOf reads it, and then put back.
func CapacityExceeded(res *http.Response) *http.Response {
	if res == nil || res.Header.Get("X-Should-Retry") != "" {
		return res
	}
	if e, ok := errorOf(res, StatusCapacityExceeded); !ok || e.Code != "capacity_exceeded" {
		return res
	}
	return markRetry(res, true)
}

package wire

import "net/http"

// StatusCancelled is 499, the status nginx logs (and never sends) for a
// client that closed its request before the answer, and Google's APIs
// answer for a call cancelled (gRPC's CANCELLED).
const StatusCancelled = 499

// Cancelled returns res marked to be sent again (X-Should-Retry: true)
// when its status is 499, unless its server marked it itself. A client
// that closed its request reads no answer: one that reads a 499 was
// cancelled by the server or a relay on its way. Gemini's backend
// cancels requests itself under heavy use and answers 499 CANCELLED,
// reason "backendError", which the same request sent again gets past
// (googleapis/python-genai#2506; google-gemini/gemini-cli#20309, whose
// fix #20432 retries it with back-off); Cohere's documents ask for the
// same of its 499. openai-go sends a 4xx other than 408, 409 and 429
// only once. A breaker reads the mark (see RetryMark): marked to be sent
// again, the 499 counts against its route.
func Cancelled(res *http.Response) *http.Response {
	if res == nil || res.StatusCode != StatusCancelled || res.Header.Get("X-Should-Retry") != "" {
		return res
	}
	return markRetry(res, true)
}

package wire

import "net/http"

// Apigee's refusal of a request body that passes the limits of a
// JSONThreatProtection policy.
//
// Google's Apigee gateway checks a request's JSON against the limits of a
// JSONThreatProtection policy on its request flow: the length of a string
// value (500 characters in the policy's own example), the elements of an
// array, the entries of an object, the depth of nesting. A prompt longer
// than the limit, or more messages than it, fails the policy, and Apigee
// answers, by default, 500 with the fault
// {"fault": {"faultstring": "JSONThreatProtection[<policy>]: Execution
// failed. reason: JSONThreatProtection[<policy>]: Exceeded string value
// length at line 1", "detail": {"errorcode":
// "steps.jsonthreatprotection.ExecutionFailed"}}}
// (cloud.google.com/apigee/docs, troubleshoot/policies/runtime/
// jsonthreatprotection-errors; the 500 by default, and a 400 only where
// the organization sets features.isPolicyHttpStatusEnabled: Google's
// answer on discuss.google.dev/t/5611). Sent again, the same body fails
// the same limit; counted by a breaker, a few such requests open it on a
// route that is well. A policy on the response flow, which checks the
// server's JSON answer, fails under the same code, and with 500 whatever
// the organization sets (the same answer of Google's): a non-streamed
// answer (New) past its limits is refused so after the server answered.
// Nothing in the fault tells the two flows apart, so that refusal reads
// as the request's too: sent once, not counted, and a Router asks its
// next route, whose gateway may check nothing. Sent again it would ask
// the model for another whole answer, as long as the first.

// apigeeThreatRefused is the errorcode of a JSONThreatProtection
// policy's failure.
const apigeeThreatRefused = "steps.jsonthreatprotection.ExecutionFailed"

// ApigeeThreatRefusal reports whether res is Apigee's refusal of a
// request body by a JSONThreatProtection policy, answered with 500: an
// error object whose code is the policy's errorcode, as BoundErrorBody
// made it of Apigee's fault. It reads the body, bounded already, only
// under 500, and puts it back.
func ApigeeThreatRefusal(res *http.Response) bool {
	e, ok := errorOf(res, http.StatusInternalServerError)
	return ok && e.Code == apigeeThreatRefused
}

package wire

import (
	"io"
	"testing"
)

// TestApigeeThreatRefusal: Apigee's fault of a JSONThreatProtection
// policy under 500 is the request's refusal, once BoundErrorBody made it
// an error object; the same fault under 400 (an organization that sets
// features.isPolicyHttpStatusEnabled) is one already, and Apigee's other
// faults under 500 or 504 are the gateway's or its target's. The body is
// kept for the next reader.
func TestApigeeThreatRefusal(t *testing.T) {
	const refused = `{"fault":{"faultstring":"JSONThreatProtection[JSON-Threat-Protection-1]: Execution failed. reason: JSONThreatProtection[JSON-Threat-Protection-1]: Exceeded string value length at line 1","detail":{"errorcode":"steps.jsonthreatprotection.ExecutionFailed"}}}`
	for _, tt := range []struct {
		status int
		body   string
		want   bool
	}{
		{500, refused, true},
		{400, refused, false},
		{500, `{"fault":{"faultstring":"Body buffer overflow","detail":{"errorcode":"protocol.http.TooBigBody"}}}`, false},
		{504, `{"fault":{"faultstring":"Gateway Timeout","detail":{"errorcode":"messaging.adaptors.http.flow.GatewayTimeout"}}}`, false},
		{500, `{"error":{"message":"steps.jsonthreatprotection.ExecutionFailed"}}`, false},
	} {
		res := response(tt.status, nil, []byte(tt.body))
		BoundErrorBody(res)
		want, _ := io.ReadAll(res.Body)
		res = response(tt.status, nil, want)
		if got := ApigeeThreatRefusal(res); got != tt.want {
			t.Errorf("ApigeeThreatRefusal(%d %s) = %v, want %v", tt.status, tt.body, got, tt.want)
		}
		if b, _ := io.ReadAll(res.Body); string(b) != string(want) {
			t.Errorf("body after ApigeeThreatRefusal = %q, want it kept", b)
		}
	}
}

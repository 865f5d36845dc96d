package tokenpace_test

import (
	"testing"
	"testing/synctest"
)

// A whole response whose answer is a tool search the caller runs (a
// tool_search_call item executed by the client, no text) is an answer: a
// Router hands it over from its first route, not another route's text. A
// search the server ran is not: with nothing after it, the answer is empty.
func TestWholeResponseClientToolSearch(t *testing.T) {
	for _, tc := range []struct {
		execution string
		want      string // the response's id
		attempts  int
	}{
		{"client", "r1", 1},
		{"server", "r2", 2},
	} {
		t.Run(tc.execution, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				id, attempts, err := routedWholeResponse(t, `{"type":"tool_search_call","id":"ts","call_id":"c","execution":"`+tc.execution+`","status":"completed","arguments":{"query":"weather"}}`)
				if err != nil || id != tc.want || attempts != tc.attempts {
					t.Errorf("Router.NewResponse() = %q, %v, %d attempts; want %s in %d", id, err, attempts, tc.want, tc.attempts)
				}
			})
		})
	}
}

package simulate

import (
	"strconv"
	"testing"
)

// A Server keeps the latest maxStoredResponses responses: a client that
// never chains its turns takes a bounded store, the oldest going first.
func TestResponseStoreBounded(t *testing.T) {
	var s responseStore
	for i := range maxStoredResponses + 10 {
		s.put("resp_"+strconv.Itoa(i), storedTurn{tokens: i})
	}
	if n := len(s.turns); n != maxStoredResponses {
		t.Errorf("stored %d responses, want %d", n, maxStoredResponses)
	}
	for _, c := range []struct {
		i    int
		kept bool
	}{{0, false}, {9, false}, {10, true}, {maxStoredResponses + 9, true}} {
		turn, ok := s.get("resp_" + strconv.Itoa(c.i))
		if ok != c.kept || (ok && turn.tokens != c.i) {
			t.Errorf("get(resp_%d) = %+v, %v; want kept %v", c.i, turn, ok, c.kept)
		}
	}
}

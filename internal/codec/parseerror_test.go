package codec

import "testing"

func TestModelEndedParseError(t *testing.T) {
	for _, c := range []struct {
		reason      string
		used, limit int64
		want        bool
	}{
		{"parse_error", 15, 256, true},  // the model ended it: a tool call that names no function
		{"parse_error", 6, 6, false},    // cut at max_tokens while it reasoned
		{"parse_error", 7, 6, false},    // a usage past the limit: cut at it
		{"parse_error", 15, 0, true},    // no limit of the request's: the context's
		{"parse_error", -1, 256, false}, // no usage: nothing tells
		{"PARSE_ERROR", 15, 256, true},
		{"stop", 15, 256, false},
		{"abort", 15, 256, false},
		{"length", 15, 256, false},
	} {
		if got := ModelEndedParseError(c.reason, c.used, c.limit); got != c.want {
			t.Errorf("ModelEndedParseError(%q, %d, %d) = %v, want %v", c.reason, c.used, c.limit, got, c.want)
		}
	}
}

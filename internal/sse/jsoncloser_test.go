package sse

import "testing"

// TestJSONCloser: a whole object in pieces, braces and escaped quotes in
// its strings, white space after it; not one that is open, followed by
// more, or not an object.
func TestJSONCloser(t *testing.T) {
	for _, tt := range []struct {
		pieces []string
		want   bool
	}{
		{[]string{"{", ` "city": "`, "Paris", `"}`}, true},
		{[]string{`{"q": "}{\"}", "n": [1, {"a": 2}]}`, " \n"}, true},
		{[]string{`{"q": "\\`, `"}`}, true},
		{[]string{`{"city": "Paris"`}, false},
		{[]string{`{"a": 1}`, `{"b": 2}`}, false},
		{[]string{`"text"`}, false},
		{[]string{`[1]`}, false},
		{nil, false},
	} {
		var j JSONCloser
		for _, p := range tt.pieces {
			j.Feed(p)
		}
		if got := j.Whole(); got != tt.want {
			t.Errorf("%q: Whole() = %v, want %v", tt.pieces, got, tt.want)
		}
	}
}

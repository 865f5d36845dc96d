package sse

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// TestJSONLines: after ErrNotEventStream, a Reader told JSONLines gives
// each line that is not blank as an event's data; a line holding an
// error ends the stream with an ErrorLine, and a last line cut short is
// dropped.
func TestJSONLines(t *testing.T) {
	for _, tc := range []struct {
		body, want string
		end        error
	}{
		{"{\"a\":1}\n{\"b\":2}\n\n{\"c\":3}\n", `{"b":2}|{"c":3}`, io.EOF},
		{"{\"a\":1}\r\n{\"b\":2}", `{"b":2}`, io.EOF},
		{"{\"a\":1}\n{\"b\":2}\n{\"c\":", `{"b":2}`, io.EOF},
		{"{\"a\":1}\n{\"b\":2}\n{\"error\": {\"message\": \"x\"}}\n", `{"b":2}`, &ErrorLine{}},
	} {
		r := NewReader(strings.NewReader(tc.body), 1<<10)
		r.Sniff()
		if _, err := r.Next(); !errors.Is(err, ErrNotEventStream) {
			t.Fatalf("Next() of %q = %v, want ErrNotEventStream", tc.body, err)
		}
		if got := string(r.Unframed()); got != `{"a":1}` {
			t.Fatalf("Unframed() of %q = %q, want the first line", tc.body, got)
		}
		r.JSONLines()
		got, err := readAll(r)
		if g := strings.Join(got, "|"); g != tc.want {
			t.Errorf("%q: lines %q, want %q", tc.body, g, tc.want)
		}
		var el *ErrorLine
		if _, line := tc.end.(*ErrorLine); line != errors.As(err, &el) || (!line && err != tc.end) {
			t.Errorf("%q: ended with %v, want %T", tc.body, err, tc.end)
		}
	}
}

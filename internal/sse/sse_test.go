package sse

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// TestErrorLine: an error outside any data field ends the stream with an
// ErrorLine; data, comments and other fields read as the format says, and
// an event of blank data (a relay's keep-alive) is skipped.
func TestErrorLine(t *testing.T) {
	for _, tc := range []struct {
		body  string
		data  []string // the events before the end
		error string   // the ErrorLine's data, "" for io.EOF
		field bool
	}{
		{"error: {\"code\":400,\"message\":\"too long\"}\n\ndata: [DONE]\n\n", nil, `{"code":400,"message":"too long"}`, true},
		{"data: {\"a\":1}\n\nerror:context full\n\n", []string{`{"a":1}`}, "context full", true},
		{`{"error":{"message":"bad"}}`, nil, `{"error":{"message":"bad"}}`, false},
		{"\n\n{\"error\":\"down\"}\n", nil, `{"error":"down"}`, false},
		{"{\"error\":null}\ndata: x\n\n", []string{"x"}, "", false},
		{"data: {\"error\":{\"message\":\"in data\"}}\n\n", []string{`{"error":{"message":"in data"}}`}, "", false},
		{": error: a comment\nevent: error\ndata: y\n\n", []string{"y"}, "", false},
		{"data:\n\ndata: \n\ndata:   \n\ndata: z\n\ndata:\n", []string{"z"}, "", false},
		{"data:\ndata: w\n\n", []string{"\nw"}, "", false},
	} {
		r := NewReader(strings.NewReader(tc.body), 1<<10)
		var got []string
		var err error
		for {
			var data []byte
			if data, err = r.Next(); err != nil {
				break
			}
			got = append(got, string(data))
		}
		var el *ErrorLine
		switch {
		case strings.Join(got, "|") != strings.Join(tc.data, "|"):
			t.Errorf("%q: events %q, want %q", tc.body, got, tc.data)
		case tc.error == "" && err != io.EOF:
			t.Errorf("%q: ended with %v, want io.EOF", tc.body, err)
		case tc.error != "" && (!errors.As(err, &el) || string(el.Data) != tc.error || el.Field != tc.field):
			t.Errorf("%q: ended with %v, want the error line %q (field %v)", tc.body, err, tc.error, tc.field)
		}
	}
}

package sse

import (
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// splitBodies are bodies of the format's framing, each field before its
// data as servers write them, that must read the same however their bytes
// are split between reads: comments, ids, named events, an error event,
// CRLF and CR line breaks, a byte order mark, an event of two data lines
// and [DONE].
var splitBodies = map[string]string{
	"responses": "event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0}\n\n" +
		"event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"Hi\"}\n\n" +
		"event: error\ndata: {\"type\":\"error\",\"message\":\"boom\"}\n\n",
	"chat": ": keep-alive\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"}}]}\n\n" +
		"id: 1\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n" +
		"data: {\"choices\":\ndata: []}\n\n" +
		"data: [DONE]\n\n",
	"CRLF":                     "\xef\xbb\xbfdata: {\"a\":1}\r\n\r\nevent: error\r\ndata: {\"code\":500}\r\n\r\ndata: [DONE]\r\n\r\n",
	"CR":                       "data: {\"a\":1}\r\rdata: {\"b\":2}\r\r",
	"first event of two lines": "data: {\"a\":\ndata: 1}\n\nevent: error\ndata: {\"b\":2}\n\ndata: {\"c\":3}\n\n",
}

// events returns each event r reads with whether it was named "error",
// and the error that ended the reading.
func events(r *Reader) ([]string, error) {
	var got []string
	for {
		data, err := r.Next()
		if err != nil {
			return got, err
		}
		got = append(got, fmt.Sprintf("%q:%v", data, r.ErrorEvent()))
	}
}

// splitReader returns body in reads of the sizes next gives.
type splitReader struct {
	body string
	next func() int
}

func (s *splitReader) Read(b []byte) (int, error) {
	if s.body == "" {
		return 0, io.EOF
	}
	n := copy(b[:min(len(b), s.next())], s.body)
	s.body = s.body[n:]
	return n, nil
}

// wantSameEvents checks that body read in the reads of next gives the
// events and end of the whole body read at once.
func wantSameEvents(t *testing.T, name, body string, next func() int) {
	t.Helper()
	want, werr := events(NewReader(strings.NewReader(body), 1<<10))
	got, err := events(NewReader(&splitReader{body, next}, 1<<10))
	if strings.Join(got, "|") != strings.Join(want, "|") || err != werr {
		t.Errorf("%s: split reads give %q, %v; the whole body %q, %v", name, got, err, want, werr)
	}
}

// TestSplitReadsOneByte: a body of the format's framing read one byte per
// read gives the events the whole body gives.
func TestSplitReadsOneByte(t *testing.T) {
	for name, body := range splitBodies {
		wantSameEvents(t, name, body, func() int { return 1 })
	}
}

// TestSplitReadsRandom: the same bodies read in random splits, and at
// every single split point, give the events the whole body gives.
func TestSplitReadsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for name, body := range splitBodies {
		for range 200 {
			wantSameEvents(t, name, body, func() int { return 1 + rng.IntN(16) })
		}
		for cut := 1; cut < len(body); cut++ {
			first := true
			wantSameEvents(t, fmt.Sprintf("%s cut at %d", name, cut), body, func() int {
				if first {
					first = false
					return cut
				}
				return len(body)
			})
		}
	}
}

// TestFirstEventAtOnce: the first event of a body whose framing is not
// yet known is returned by the read that holds its data line whole, when
// the line after it has not arrived: in a body of one line per event, and
// in one of the format's framing whose blank line comes in a later read;
// and by the same read when its blank line comes with it.
func TestFirstEventAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name   string
		pieces []string
	}{
		{"one line per event", []string{"data: {\"a\":1}\n", "data: {\"b\":2}\n"}},
		{"the next line cut", []string{"data: {\"a\":1}\ndata: {\"b\"", ":2}\n"}},
		{"blank line later", []string{"data: {\"a\":1}\n", "\ndata: {\"b\":2}\n\n"}},
		{"named, blank line later", []string{"event: response.created\ndata: {\"a\":1}\n", "\ndata: {\"b\":2}\n\n"}},
		{"blank line with it", []string{"data: {\"a\":1}\n\n", "data: {\"b\":2}\n\n"}},
		{"blank line with it, CRLF", []string{"data: {\"a\":1}\r\n\r\n", "data: {\"b\":2}\r\n\r\n"}},
	} {
		p := &pieces{tc.pieces}
		r := NewReader(p, 1<<10)
		data, err := r.Next()
		if err != nil || string(data) != `{"a":1}` {
			t.Errorf("%s: Next() = %q, %v, want {\"a\":1}", tc.name, data, err)
			continue
		}
		if reads := len(tc.pieces) - len(p.rest); reads != 1 {
			t.Errorf("%s: the first event came after %d reads, want 1", tc.name, reads)
		}
		if data, err = r.Next(); err != nil || string(data) != `{"b":2}` {
			t.Errorf("%s: then Next() = %q, %v, want {\"b\":2}", tc.name, data, err)
		}
	}
}

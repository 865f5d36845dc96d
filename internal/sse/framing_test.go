package sse

import (
	"io"
	"strings"
	"testing"
)

// TestLineFraming: a body that ends each event with one line break and no
// blank line (the api_like_OAI.py proxy of llama.cpp's 2023 server and its
// forks, PowerInfer's among them) reads one event per data line, each as
// it arrives; a body of the format's framing reads as the format says, a
// later event of two data lines joined.
func TestLineFraming(t *testing.T) {
	for _, tc := range []struct {
		name string
		body string
		data []string
	}{
		{"one line each", "data: {\"a\": 1}\ndata: {\"b\": 2}\ndata: {\"c\": 3}\n", []string{`{"a": 1}`, `{"b": 2}`, `{"c": 3}`}},
		{"one line each, [DONE]", "data: {\"a\":1}\ndata: [DONE]\n", []string{`{"a":1}`, "[DONE]"}},
		{"blank lines", "data: {\"a\":1}\n\ndata: {\"b\":\ndata: 2}\n\n", []string{`{"a":1}`, "{\"b\":\n2}"}},
		{"blank lines, joined later", "data: {\"a\":1}\n\ndata: {\"b\":2}\ndata: {\"c\":3}\n\n", []string{`{"a":1}`, "{\"b\":2}\n{\"c\":3}"}},
		{"an id before the blank line", "data: {\"a\":1}\nid: 7\n\ndata: {\"b\":2}\n\n", []string{`{"a":1}`, `{"b":2}`}},
		{"a first event of two lines", "data: {\"a\":\ndata: 1}\n\ndata: {\"b\":2}\n\n", []string{"{\"a\":\n1}", `{"b":2}`}},
	} {
		got, err := readAll(NewReader(strings.NewReader(tc.body), 1<<10))
		if err != io.EOF || strings.Join(got, "|") != strings.Join(tc.data, "|") {
			t.Errorf("%s: events %q, %v, want %q, io.EOF", tc.name, got, err, tc.data)
		}
	}
}

// TestLineFramingAtOnce: an event of a body of one line per event is
// returned when its line arrives, not when the next one does.
func TestLineFramingAtOnce(t *testing.T) {
	p := &pieces{[]string{"data: {\"a\":1}\n", "data: {\"b\":2}\n", "data: {\"c\":3}\n"}}
	r := NewReader(p, 1<<10)
	for i, want := range []string{`{"a":1}`, `{"b":2}`, `{"c":3}`} {
		data, err := r.Next()
		if err != nil || string(data) != want {
			t.Fatalf("Next() = %q, %v, want %q", data, err, want)
		}
		if reads := 3 - len(p.rest); reads != i+1 {
			t.Errorf("event %d came after %d reads, want %d", i, reads, i+1)
		}
	}
}

// BenchmarkNext: the cost of one event of a body of the format's framing
// (a chat chunk a data line and a blank line), which the framing check
// must leave as it was.
func BenchmarkNext(b *testing.B) {
	const event = "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" token\"},\"finish_reason\":null}]}\n\n"
	body := strings.Repeat(event, 1024)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		r := NewReader(strings.NewReader(body), 1<<16)
		for {
			if _, err := r.Next(); err != nil {
				break
			}
		}
	}
}

// TestFieldsAfterData: an event whose whole data line comes before its
// other fields (the format allows them in any order) and arrives with
// them reads as the format says: named "error" when an "event: error"
// line follows its data, with any line ending, and with the blank line
// that ends it consumed before it is returned.
func TestFieldsAfterData(t *testing.T) {
	const data = `{"code":422,"details":"blocked"}`
	for _, tc := range []struct {
		name, body string
		named      bool
	}{
		{"event after data", "data: " + data + "\nevent: error\n\n", true},
		{"event after data, CRLF", "data: " + data + "\r\nevent: error\r\n\r\n", true},
		{"event after data, CR", "data: " + data + "\revent: error\r\r", true},
		{"id, then event", "data: " + data + "\nid: 1\nevent: error\n\n", true},
		{"blank line", "data: " + data + "\n\n", false},
		{"blank line, CRLF", "data: " + data + "\r\n\r\n", false},
	} {
		r := NewReader(strings.NewReader(tc.body), 1<<10)
		got, err := r.Next()
		if err != nil || string(got) != data || r.ErrorEvent() != tc.named {
			t.Errorf("%s: Next() = %q, %v, ErrorEvent() %v, want %q, nil, %v", tc.name, got, err, r.ErrorEvent(), data, tc.named)
		}
		if c := r.Consumed(); c != int64(len(tc.body)) {
			t.Errorf("%s: Consumed() = %d after the event, want %d", tc.name, c, len(tc.body))
		}
	}
}

// TestFramingSettles: a body whose first event a blank line ends, though
// its data was not dispatched at its line (not JSON, or another field
// after it), is of the format's framing from then on: later lines cost no
// look at the line after them.
func TestFramingSettles(t *testing.T) {
	for _, body := range []string{
		"data: hello\n\ndata: {\"b\":2}\n\n",
		"data: {\"a\":\ndata: 1}\n\ndata: {\"b\":2}\n\n",
		"event: delta\ndata: {\"a\":1}\n\ndata: {\"b\":2}\n\n",
	} {
		r := NewReader(strings.NewReader(body), 1<<10)
		if _, err := r.Next(); err != nil {
			t.Fatalf("%q: Next: %v", body, err)
		}
		if r.framing != framingBlank {
			t.Errorf("%q: framing %d after its first event, want the format's (%d)", body, r.framing, framingBlank)
		}
	}
}

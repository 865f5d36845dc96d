package sse

import (
	"errors"
	"fmt"
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
		{"Prompt is too long", nil, "Prompt is too long", false},
		{"data: {\"a\":1}\n\nGeneration failed: out of memory", []string{`{"a":1}`}, "Generation failed: out of memory", false},
		{"stray line\ndata: v\n\n", []string{"v"}, "", false},
		{"data: v\n\nda", []string{"v"}, "", false},
		{"data: v\n\nretry", []string{"v"}, "", false},
		{"data: v\n\nerr", []string{"v"}, "", false},
		{"data: v\n\nerror", []string{"v"}, "", false},
		{"data: v\n\n[DONE]", []string{"v"}, "", false},
		{"data: v\n\n  ", []string{"v"}, "", false},
		{"data: v\n\n{\"id\":\"x\",\"choices\":[{\"delta\":{\"content\":\"he", []string{"v"}, "", false},
		{"data: v\n\n\x1f\x8b\x08\x00", []string{"v"}, "", false},
		{"data: v\n\n<html><body>Bad Gateway", []string{"v"}, "", false},
	} {
		got, err := readAll(NewReader(strings.NewReader(tc.body), 1<<10))
		var el *ErrorLine
		switch {
		case strings.Join(got, "|") != strings.Join(tc.data, "|"):
			t.Errorf("%q: events %q, want %q", tc.body, got, tc.data)
		case tc.error == "" && err != io.EOF:
			t.Errorf("%q: ended with %v, want io.EOF", tc.body, err)
		case tc.error != "" && (!errors.As(err, &el) || string(el.Data) != tc.error || el.Field != tc.field ||
			el.Text != (!tc.field && tc.error[0] != '{')):
			t.Errorf("%q: ended with %v, want the error line %q (field %v)", tc.body, err, tc.error, tc.field)
		}
	}
}

// TestLineEndings: lines end with LF, CRLF or CR alone, whatever reads
// the bytes come in; a byte order mark before the first line is dropped;
// an event ending in a CR is dispatched without waiting for more bytes.
func TestLineEndings(t *testing.T) {
	const want = `{"a":1}|{"b":2}|[DONE]`
	for _, tc := range []struct {
		name   string
		pieces []string // what each read returns
	}{
		{"LF", []string{"data: {\"a\":1}\n\ndata: {\"b\":2}\n\ndata: [DONE]\n\n"}},
		{"CRLF", []string{"data: {\"a\":1}\r\n\r\ndata: {\"b\":2}\r\n\r\ndata: [DONE]\r\n\r\n"}},
		{"CR", []string{"data: {\"a\":1}\r\rdata: {\"b\":2}\r\rdata: [DONE]\r\r"}},
		{"CRLF split after CR", []string{"data: {\"a\":1}\r", "\n\r", "\ndata: {\"b\":2}\r\n\r", "\ndata: [DONE]\r\n\r\n"}},
		{"mixed", []string{"data: {\"a\":1}\r\n\ndata: {\"b\":2}\r\n\rdata: [DONE]\n\r\n"}},
		{"BOM", []string{"\xef\xbb\xbfdata: {\"a\":1}\n\ndata: {\"b\":2}\n\ndata: [DONE]\n\n"}},
		{"BOM split", []string{"\xef", "\xbb", "\xbfdata: {\"a\":1}\n\ndata: {\"b\":2}\n\ndata: [DONE]\n\n"}},
		{"multi-line data, CR", []string{"data: {\"a\":\rdata: 1}\r\rdata: {\"b\":2}\r\rdata: [DONE]\r"}},
	} {
		r := NewReader(&pieces{tc.pieces}, 1<<10)
		var got []string
		for {
			data, err := r.Next()
			if err != nil {
				if err != io.EOF {
					t.Errorf("%s: ended with %v, want io.EOF", tc.name, err)
				}
				break
			}
			got = append(got, strings.ReplaceAll(string(data), "\n", ""))
		}
		if g := strings.Join(got, "|"); g != want {
			t.Errorf("%s: events %q, want %q", tc.name, g, want)
		}
	}
}

// TestDispatchesAtOnce: an event is returned as soon as the read that
// completes it: when its blank line ends in a CR, the last byte that has
// arrived; when the read starts with the LF of a CRLF split between reads,
// or with a byte order mark. Its arrival time is that of its own bytes.
func TestDispatchesAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name   string
		pieces []string
		reads  int // the pieces read when the first event is returned
	}{
		{"CR", []string{"data: x\r\r", "\ndata: y\r\n\r\n"}, 1},
		{"LF of a split CRLF", []string{"data: x\r", "\n\r", "\ndata: y\r\n\r\n"}, 2},
		{"BOM", []string{"\xef\xbb\xbfdata: x\n\n", "data: y\n\n"}, 1},
		{"BOM alone", []string{"\xef\xbb\xbf", "data: x\n\n", "data: y\n\n"}, 2},
	} {
		p := &pieces{tc.pieces}
		r := NewReader(p, 1<<10)
		data, err := r.Next()
		if err != nil || string(data) != "x" {
			t.Errorf("%s: Next() = %q, %v, want \"x\"", tc.name, data, err)
			continue
		}
		if reads := len(tc.pieces) - len(p.rest); reads != tc.reads {
			t.Errorf("%s: the first event came after %d reads, want %d", tc.name, reads, tc.reads)
		}
		if data, err = r.Next(); err != nil || string(data) != "y" {
			t.Errorf("%s: then Next() = %q, %v, want \"y\"", tc.name, data, err)
		}
	}
}

// TestErrorEvent: an event named "error" says so, whatever its data; the
// name holds for its event only.
func TestErrorEvent(t *testing.T) {
	body := "event: error\ndata: {\"code\":422,\"details\":\"no\"}\n\n" +
		"data: a\n\n" +
		"event: error\n\n" + // no data: nothing dispatched, the name dropped
		"data: b\n\n" +
		"event: message\ndata: c\n\n" +
		"event:error\r\ndata: upstream timed out\r\n\r\n"
	r := NewReader(strings.NewReader(body), 1<<10)
	var got []string
	for {
		data, err := r.Next()
		if err != nil {
			break
		}
		got = append(got, fmt.Sprintf("%s:%v", data, r.ErrorEvent()))
	}
	want := `{"code":422,"details":"no"}:true|a:false|b:false|c:false|upstream timed out:true`
	if g := strings.Join(got, "|"); g != want {
		t.Errorf("events %q, want %q", g, want)
	}
}

// TestErrorEventComment: an event named "error" that holds no data but
// comment lines is dispatched with their text as its data, as NVIDIA
// Dynamo's frontend sent a failure before ai-dynamo/dynamo#8430 ("event:
// error" and ": <message>"); a comment in any other event, or in an error
// event that has data, is skipped as before.
func TestErrorEventComment(t *testing.T) {
	body := ": keep-alive\n\n" +
		"data: a\n\n" +
		"event: request_id\n: \"0c6f\"\n\n" + // an annotation: no data, not an error
		"event: error\n: Disconnected: Stream ended before generation completed\n\n" +
		"event: error\n: first\n:second\n\n" +
		"event: error\n: ignored\ndata: {\"code\":500}\n\n" +
		"event: error\n:\n\n" + // an empty comment: nothing to tell
		"event: error\n: at the end\n" // whole, no blank line after it
	r := NewReader(strings.NewReader(body), 1<<10)
	var got []string
	for {
		data, err := r.Next()
		if err != nil {
			if err != io.EOF {
				t.Errorf("ended with %v, want io.EOF", err)
			}
			break
		}
		got = append(got, fmt.Sprintf("%s:%v", data, r.ErrorEvent()))
	}
	want := "a:false|Disconnected: Stream ended before generation completed:true|first\nsecond:true|{\"code\":500}:true|at the end:true"
	if g := strings.Join(got, "|"); g != want {
		t.Errorf("events %q, want %q", g, want)
	}
}

// pieces returns its pieces one per read.
type pieces struct{ rest []string }

func (p *pieces) Read(b []byte) (int, error) {
	if len(p.rest) == 0 {
		return 0, io.EOF
	}
	n := copy(b, p.rest[0])
	if p.rest[0] = p.rest[0][n:]; p.rest[0] == "" {
		p.rest = p.rest[1:]
	}
	return n, nil
}

// TestLastEvent: at the end of the body, a last event that no blank line
// follows is dispatched when its lines arrived whole, and not when its
// last line was cut short, which could be any line's start; but
// "data: [DONE]" without its line break (KoboldCpp's end) and a whole
// JSON object (Kong's error) are, since no cut of another line gives them.
func TestLastEvent(t *testing.T) {
	for _, tc := range []struct {
		body, want string
	}{
		{"data: {\"a\":1}\n\ndata: [DONE]\n", `{"a":1}|[DONE]`},
		{"data: {\"a\":1}\n\ndata: [DONE]", `{"a":1}|[DONE]`},
		{"data: {\"a\":1}\n\ndata: {\"b\":2}\n", `{"a":1}|{"b":2}`},
		{"data: {\"a\":1}\n\ndata: {\"b\":", `{"a":1}`},
		{"data: {\"a\":1}\n\ndata: {\"error\": true}", `{"a":1}|{"error": true}`},
		{"data: {\"a\":1}\n\ndata: [DON", `{"a":1}`},
		{"data: {\"a\":1}\n\ndata: x\ndata: [DONE]", `{"a":1}`},
	} {
		r := NewReader(strings.NewReader(tc.body), 1<<10)
		var got []string
		for {
			data, err := r.Next()
			if err != nil {
				if err != io.EOF {
					t.Errorf("%q: ended with %v, want io.EOF", tc.body, err)
				}
				break
			}
			got = append(got, string(data))
		}
		if g := strings.Join(got, "|"); g != tc.want {
			t.Errorf("%q: events %q, want %q", tc.body, g, tc.want)
		}
	}
}

// TestUnframed: a body read with Sniff whose first line is no field of
// the format ends with ErrNotEventStream, and Unframed gives that line.
func TestUnframed(t *testing.T) {
	for _, tc := range []struct{ body, line string }{
		{`{"id":"cmpl-1","object":"text_completion","choices":[]}`, `{"id":"cmpl-1","object":"text_completion","choices":[]}`},
		{"<html>\n<body>login</body>\n</html>\n", "<html>"},
	} {
		r := NewReader(strings.NewReader(tc.body), 1<<16)
		r.Sniff()
		if _, err := r.Next(); !errors.Is(err, ErrNotEventStream) {
			t.Fatalf("Next() of %q = %v, want ErrNotEventStream", tc.body, err)
		}
		if got := string(r.Unframed()); got != tc.line {
			t.Errorf("Unframed() of %q = %q, want %q", tc.body, got, tc.line)
		}
	}
}

// readAll returns the data of every event r reads, and the error that
// ended its reading.
func readAll(r *Reader) ([]string, error) {
	var got []string
	for {
		data, err := r.Next()
		if err != nil {
			return got, err
		}
		got = append(got, string(data))
	}
}

package simulate

import (
	"encoding/json"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

func TestParsePrompt(t *testing.T) {
	tests := []struct {
		in     string
		text   string
		tokens int
		ok     bool
	}{
		{`"hi"`, "hi", 0, true},
		{` ["hi"] `, "hi", 0, true},
		{`[1, 2,3]`, "", 3, true},
		{`[-1,0]`, "", 2, true},
		{`[ 7 ]`, "", 1, true},
		{`[]`, "", 0, false},
		{`["a","b"]`, "", 0, false},
		{`[1,2.5]`, "", 0, false},
		{`[1e3]`, "", 0, false},
		{`[1,"a"]`, "", 0, false},
		{`[[1]]`, "", 0, false},
		{`[true]`, "", 0, false},
		{`{}`, "", 0, false},
		{`null`, "", 0, false},
		{`5`, "", 0, false},
	}
	for _, tt := range tests {
		text, tokens, e := parsePrompt(json.RawMessage(tt.in))
		if text != tt.text || tokens != tt.tokens || (e == nil) != tt.ok {
			t.Errorf("parsePrompt(%s) = %q, %d, %v, want %q, %d, ok %v", tt.in, text, tokens, e, tt.text, tt.tokens, tt.ok)
		}
	}
}

// A prompt of token ids is counted without decoding the ids: no
// allocation, however many there are.
func TestParsePromptTokenIDsAllocateNothing(t *testing.T) {
	const n = 200_000
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(i))
	}
	b.WriteByte(']')
	raw := json.RawMessage(b.String())
	var tokens int
	allocs := testing.AllocsPerRun(3, func() { _, tokens, _ = parsePrompt(raw) })
	if tokens != n || allocs != 0 {
		t.Errorf("parsePrompt(%d ids) = %d tokens with %v allocations, want %d with 0", n, tokens, allocs, n)
	}
}

// FuzzParsePrompt checks the prompt reader against a plain decoding: a
// valid JSON value is a string, an array of one string, or an array of
// integers counted one token each.
func FuzzParsePrompt(f *testing.F) {
	for _, s := range []string{`"hi"`, `["a"]`, `[1,2,3]`, `[1.5]`, `[1e2]`, `[]`, `[-1]`, `[[1]]`, `["a","b"]`, ` [ 1 , 2 ] `} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !json.Valid([]byte(s)) {
			return // the request decoder rejects it first
		}
		text, tokens, e := parsePrompt(json.RawMessage(s))
		var want struct {
			text   string
			tokens int
			ok     bool
		}
		var str string
		var strs []string
		var elems []any // a json.Number per number: a string that reads as a number stays a string
		d := json.NewDecoder(strings.NewReader(s))
		d.UseNumber()
		switch {
		case json.Unmarshal([]byte(s), &str) == nil:
			want.text, want.ok = str, true
		case json.Unmarshal([]byte(s), &strs) == nil:
			if len(strs) == 1 {
				want.text, want.ok = strs[0], true
			}
		case d.Decode(&elems) == nil && len(elems) > 0:
			want.tokens, want.ok = len(elems), true
			for _, e := range elems {
				if n, ok := e.(json.Number); !ok || strings.ContainsAny(string(n), ".eE") {
					want.tokens, want.ok = 0, false
				}
			}
		}
		if text != want.text || tokens != want.tokens || (e == nil) != want.ok {
			t.Fatalf("parsePrompt(%s) = %q, %d, %v, want %q, %d, ok %v", s, text, tokens, e, want.text, want.tokens, want.ok)
		}
	})
}

func TestReadBody(t *testing.T) {
	for _, n := range []int{0, 1, 100, bodyBlock - 1, bodyBlock, bodyBlock + 1, 5*bodyBlock + 7} {
		data := strings.Repeat("abcdefg", n/7+1)[:n]
		for _, size := range []int64{int64(n), -1, 0, int64(n) + 1000, 4 << 20} {
			got, err := readBody(iotest.HalfReader(strings.NewReader(data)), size)
			if err != nil || string(got) != data {
				t.Errorf("readBody(%d bytes, announced %d) = %d bytes, %v, want the body", n, size, len(got), err)
			}
		}
	}
	if _, err := readBody(iotest.ErrReader(io.ErrUnexpectedEOF), 10); err != io.ErrUnexpectedEOF {
		t.Errorf("readBody(failing reader) error = %v, want the reader's", err)
	}
}

// A client that announces a large body and sends a byte costs what it
// sent, not what it announced.
func TestReadBodyTrustsNoContentLength(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 10 {
		if _, err := readBody(strings.NewReader("x"), 4<<20); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 4<<20 {
		t.Errorf("10 one-byte bodies announced as 4 MiB allocated %d bytes, want well under 4 MiB", got)
	}
}

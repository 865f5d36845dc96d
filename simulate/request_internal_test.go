package simulate

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
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
		var nums []json.Number
		d := json.NewDecoder(strings.NewReader(s))
		d.UseNumber()
		switch {
		case json.Unmarshal([]byte(s), &str) == nil:
			want.text, want.ok = str, true
		case json.Unmarshal([]byte(s), &strs) == nil:
			if len(strs) == 1 {
				want.text, want.ok = strs[0], true
			}
		case d.Decode(&nums) == nil && len(nums) > 0:
			want.tokens, want.ok = len(nums), true
			for _, n := range nums {
				if strings.ContainsAny(string(n), ".eE") {
					want.tokens, want.ok = 0, false
				}
			}
		}
		if text != want.text || tokens != want.tokens || (e == nil) != want.ok {
			t.Fatalf("parsePrompt(%s) = %q, %d, %v, want %q, %d, ok %v", s, text, tokens, e, want.text, want.tokens, want.ok)
		}
	})
}

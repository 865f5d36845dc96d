package codec

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
)

// TestSurrogateJoin joins the events of one stream, in order, and checks
// each event's JSON as the decoder is then given it: a surrogate pair
// split between two events comes whole in the second, and nothing else
// moves.
func TestSurrogateJoin(t *testing.T) {
	for _, tc := range []struct {
		name       string
		events     []string
		want       []string
		heldAtLast bool
	}{
		{"a pair split between two events",
			[]string{`{"c":"Hi \ud83d"}`, `{"c":"\ude00 there"}`},
			[]string{`{"c":"Hi "}`, `{"c":"\ud83d\ude00 there"}`}, false},
		{"upper-case hex",
			[]string{`{"c":"Hi \uD83D"}`, `{"c":"\uDE00"}`},
			[]string{`{"c":"Hi "}`, `{"c":"\uD83D\uDE00"}`}, false},
		{"a pair split twice, an event both ends",
			[]string{`{"c":"a \ud83c"}`, `{"c":"\udf92 b \ud83c"}`, `{"c":"\udf26 c"}`},
			[]string{`{"c":"a "}`, `{"c":"\ud83c\udf92 b "}`, `{"c":"\ud83c\udf26 c"}`}, false},
		{"held past an event with no text",
			[]string{`{"c":"a\ud83d"}`, `{"d":{}}`, `{"c":"\ude00"}`},
			[]string{`{"c":"a"}`, `{"d":{}}`, `{"c":"\ud83d\ude00"}`}, false},
		{"a whole pair in one event is left as it is",
			[]string{`{"c":"\ud83d\ude00"}`, `{"c":"\u4f60\u597d"}`},
			[]string{`{"c":"\ud83d\ude00"}`, `{"c":"\u4f60\u597d"}`}, false},
		{"an escaped backslash before u is no escape",
			[]string{`{"c":"C:\\ud83d"}`, `{"c":"\ude00"}`},
			[]string{`{"c":"C:\\ud83d"}`, `{"c":"\ude00"}`}, false},
		{"a low surrogate after an escaped quote does not begin a string",
			[]string{`{"c":"x\ud83d"}`, `{"c":"say \"\ude00"}`},
			[]string{`{"c":"x"}`, `{"c":"\ud83dsay \"\ude00"}`}, false},
		{"the next string of its place begins with other text: the half before it",
			[]string{`{"c":"a\ud83d"}`, `{"c":"hello"}`, `{"c":"\ude00"}`},
			[]string{`{"c":"a"}`, `{"c":"\ud83dhello"}`, `{"c":"\ude00"}`}, false},
		{"a string of another key is not its place",
			[]string{`{"c":"a\ud83d"}`, `{"id":"\ude00","c":"\ude00"}`},
			[]string{`{"c":"a"}`, `{"id":"\ude00","c":"\ud83d\ude00"}`}, false},
		{"white space around the colon",
			[]string{`{"c" : "a\ud83d"}`, `{ "c":	"\ude00"}`},
			[]string{`{"c" : "a"}`, `{ "c":	"\ud83d\ude00"}`}, false},
		{"an array's string is left",
			[]string{`{"t":["a\ud83d"]}`, `{"t":["\ude00"]}`},
			[]string{`{"t":["a\ud83d"]}`, `{"t":["\ude00"]}`}, false},
		{"only high surrogates: one held at a time",
			[]string{`{"c":"\ud83d"}`, `{"c":"\ud83d"}`, `{"c":"\ud83d"}`},
			[]string{`{"c":""}`, `{"c":"\ud83d"}`, `{"c":"\ud83d"}`}, true},
		{"a lone high surrogate mid-string is left",
			[]string{`{"c":"\ud83d x"}`, `{"c":"\ude00"}`},
			[]string{`{"c":"\ud83d x"}`, `{"c":"\ude00"}`}, false},
		{"a lone high surrogate at the end of the stream is held, then dropped",
			[]string{`{"c":"bye \ud83d"}`},
			[]string{`{"c":"bye "}`}, true},
		{"a control byte where a hex digit should be is no escape",
			[]string{"{\"c\":\"\\ud80\x17\"}", `{"c":"x"}`},
			[]string{"{\"c\":\"\\ud80\x17\"}", `{"c":"x"}`}, false},
		{"a control byte in a high surrogate's second digit is no escape",
			[]string{"{\"c\":\"\\ud\x183d\"}", `{"c":"\ude00 there"}`},
			[]string{"{\"c\":\"\\ud\x183d\"}", `{"c":"\ude00 there"}`}, false},
		{"an escape cut short at the end of the event",
			[]string{`{"c":"\ud8`},
			[]string{`{"c":"\ud8`}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var j surrogateJoin
			for i, ev := range tc.events {
				if got := string(j.join([]byte(ev))); got != tc.want[i] {
					t.Errorf("join(%s) = %s, want %s", ev, got, tc.want[i])
				}
			}
			if j.n > 0 != tc.heldAtLast {
				t.Errorf("holds an escape at the end: %v, want %v", j.n > 0, tc.heldAtLast)
			}
		})
	}
}

// TestSurrogateJoinDecoders decodes a character split between two
// events through the decoder of a stream of each API: the first event's
// text ends before it, the second's begins with it whole.
func TestSurrogateJoinDecoders(t *testing.T) {
	chunk := func(s string) string {
		return `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"` + s + `"},"finish_reason":null}]}`
	}
	completion := func(s string) string {
		return `{"id":"c","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":"` + s + `","finish_reason":null}]}`
	}
	delta := func(s string) string {
		return `{"type":"response.output_text.delta","sequence_number":1,"item_id":"m","output_index":0,"content_index":0,"delta":"` + s + `"}`
	}
	text := func(ev Event) string { return ev.Chunk.Choices[0].Delta.Content }
	for _, tc := range []struct {
		name  string
		dec   Decoder
		event func(string) string
		orig  func(ev Event) string
	}{
		{"chat", DecoderFor(Chat(openai.ChatCompletionNewParams{}, true)), chunk,
			func(ev Event) string { return ev.Orig.(*openai.ChatCompletionChunk).Choices[0].Delta.Content }},
		{"completions", DecoderFor(Completion(openai.CompletionNewParams{}, true)), completion,
			func(ev Event) string { return ev.Orig.(*openai.Completion).Choices[0].Text }},
		{"responses", DecoderFor(Response(responses.ResponseNewParams{})), delta,
			func(ev Event) string { return ev.Orig.(*responses.ResponseStreamEventUnion).Delta }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for i, want := range []string{"Hi ", "😀 there"} {
				ev, err := tc.dec.Decode([]byte(tc.event([]string{`Hi \ud83d`, `\ude00 there`}[i])))
				if err != nil {
					t.Fatal(err)
				}
				if got, orig := text(ev), tc.orig(ev); got != want || orig != want || ev.Outputs != 1 {
					t.Errorf("event %d: text %q, as the caller reads it %q, %d outputs; want %q and 1", i, got, orig, ev.Outputs, want)
				}
			}
		})
	}
}

// TestSurrogateJoinAllocates checks that an event with no escape of a
// split character costs no allocation: most events hold no \u at all,
// and a server that escapes every non-ASCII character (Python's
// json.dumps) sends whole pairs.
func TestSurrogateJoinAllocates(t *testing.T) {
	var j surrogateJoin
	for _, ev := range []string{
		`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":" hello"},"finish_reason":null}]}`,
		`{"id":"chatcmpl-1","choices":[{"index":0,"delta":{"content":"\u4f60\u597d \ud83d\ude00"},"finish_reason":null}]}`,
	} {
		data := []byte(ev)
		if n := testing.AllocsPerRun(100, func() { j.join(data) }); n != 0 {
			t.Errorf("join(%s): %v allocations, want 0", ev, n)
		}
	}
	j.join([]byte(`{"choices":[{"index":0,"delta":{"content":"a \ud83d"}}]}`))
	finish := []byte(`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)
	if n := testing.AllocsPerRun(100, func() { j.join(finish) }); n != 0 || j.n != 1 {
		t.Errorf("join(%s) with a half held: %v allocations, %d held; want 0 and 1", finish, n, j.n)
	}
}

// BenchmarkSurrogateJoin joins one content chunk as OpenAI sends it (no
// escape), one of a server that escapes every non-ASCII character (whole
// pairs), one that ends with a split pair, and an event of many strings
// that end with a high surrogate (9.2 s before their looks were bounded).
func BenchmarkSurrogateJoin(b *testing.B) {
	for _, bc := range []struct{ name, data string }{
		{"plain", `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"content":" hello"},"logprobs":null,"finish_reason":null}],"usage":null}`},
		{"escaped", `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"\u4f60\u597d \ud83d\ude00"},"finish_reason":null}]}`},
		{"split", `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"Pack a \ud83c"},"finish_reason":null}]}`},
		// 300 strings of one key, then 20,000 more that end with a high
		// surrogate: their places are not all looked for.
		{"hostile", `{` + strings.Repeat(`"k":"a",`, 300) + strings.Repeat(`"k":"\ud83d",`, 20000) + `"z":1}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			data := []byte(bc.data)
			b.ReportAllocs()
			for b.Loop() {
				var j surrogateJoin
				j.join(data)
			}
		})
	}
}

// FuzzSurrogateJoin joins three events in order: it never panics, an
// event that is JSON stays JSON, and no more than maxHeld escapes are
// held.
func FuzzSurrogateJoin(f *testing.F) {
	f.Add(`{"c":"Hi \ud83d"}`, `{"c":"\ude00 there"}`, `{"c":"x"}`)
	f.Add(`{"c":"\\ud83d"}`, `{"c":"say \"\ude00"}`, `{"d":{}}`)
	f.Add(`{"c":"\ud8`, `"\udc00"`, `{"c" : "\udc00"}`)
	f.Add(`{"choices":[{"index":0,"delta":{"content":"A \ud83d"}}]}`, `{"choices":[{"index":1,"delta":{"content":"B \ud83c"}}]}`, `{"choices":[{"index":0,"delta":{"content":"\ude00"}}]}`)
	f.Fuzz(func(t *testing.T, a, b, c string) {
		var j surrogateJoin
		for _, ev := range []string{a, b, c} {
			out := j.join([]byte(ev))
			if json.Valid([]byte(ev)) && !json.Valid(out) {
				t.Errorf("join(%q) = %q: no longer JSON", ev, out)
			}
			if j.n > maxHeld {
				t.Errorf("join(%q): %d escapes held, want at most %d", ev, j.n, maxHeld)
			}
		}
	})
}

// TestSurrogateJoinPlaces decodes chat chunks whose characters are split
// in more than one string: two choices (n=2) interleaved, each with its
// own emoji cut, and a chunk whose logprobs token is cut where its
// content is. Each string's half goes to the next string of its place:
// the caller reads each choice's text, and the tokens, whole (before:
// choice 0 read "A 🈀 a", the first half of choice 1's emoji and the
// second of its own, choice 1 "B � b"; the content "�😀", its first half
// left and the token's put before its second).
func TestSurrogateJoinPlaces(t *testing.T) {
	chunk := func(index int, content, token string) string {
		lp := "null"
		if token != "" {
			lp = `{"content":[{"token":"` + token + `","logprob":-0.1,"bytes":null,"top_logprobs":[]}]}`
		}
		return `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":` + string(rune('0'+index)) + `,"delta":{"content":"` + content + `"},"logprobs":` + lp + `,"finish_reason":null}]}`
	}
	for _, tc := range []struct {
		name   string
		events []string
		text   []string // by choice
		tokens string
	}{
		{"two choices interleaved",
			[]string{chunk(0, `A \ud83d`, ""), chunk(1, `B \ud83c`, ""), chunk(0, `\ude00 a`, ""), chunk(1, `\udf92 b`, "")},
			[]string{"A 😀 a", "B 🎒 b"}, ""},
		{"a logprobs token cut with its content",
			[]string{chunk(0, `\ud83d`, `\ud83d`), chunk(0, `\ude00`, `\ude00`)},
			[]string{"😀"}, "😀"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dec := DecoderFor(Chat(openai.ChatCompletionNewParams{N: openai.Int(int64(len(tc.text)))}, true))
			text := make([]string, len(tc.text))
			tokens := ""
			for _, e := range tc.events {
				ev, err := dec.Decode([]byte(e))
				if err != nil {
					t.Fatal(err)
				}
				for _, ch := range ev.Chunk.Choices {
					text[ch.Index] += ch.Delta.Content
					for _, lp := range ch.Logprobs.Content {
						tokens += lp.Token
					}
				}
			}
			for i := range text {
				if text[i] != tc.text[i] {
					t.Errorf("choice %d: %q, want %q", i, text[i], tc.text[i])
				}
			}
			if tokens != tc.tokens {
				t.Errorf("tokens %q, want %q", tokens, tc.tokens)
			}
		})
	}
}

// TestSurrogateJoinToolCalls decodes two tool calls of one choice whose
// arguments are streamed interleaved, each with an emoji cut: each call's
// half goes to its own next arguments (before, the second call's first
// half went to the first call's second half, "a 🈀", and the second
// call read "b �"; keyed without the index nearest before the string,
// the first call's half went before the second call's arguments,
// "\ufffd{\"q\":…", no longer JSON).
func TestSurrogateJoinToolCalls(t *testing.T) {
	chunk := func(tool int, head, args string) string {
		return `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":` + string(rune('0'+tool)) + head + `,"function":{"arguments":"` + args + `"}}]},"finish_reason":null}]}`
	}
	dec := DecoderFor(Chat(openai.ChatCompletionNewParams{}, true))
	args := make([]string, 2)
	for _, e := range []string{
		chunk(0, `,"id":"t0","type":"function"`, `{\"q\":\"a \ud83d`),
		chunk(1, `,"id":"t1","type":"function"`, `{\"q\":\"b \ud83c`),
		chunk(0, ``, `\ude00\"}`),
		chunk(1, ``, `\udf92\"}`),
	} {
		ev, err := dec.Decode([]byte(e))
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range ev.Chunk.Choices[0].Delta.ToolCalls {
			args[tc.Index] += tc.Function.Arguments
		}
	}
	for i, want := range []string{`{"q":"a 😀"}`, `{"q":"b 🎒"}`} {
		if args[i] != want {
			t.Errorf("tool call %d: arguments %q, want %q", i, args[i], want)
		}
	}
}

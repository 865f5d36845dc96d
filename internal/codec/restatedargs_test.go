package codec

import (
	"fmt"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestRestatedArguments feeds tool-call deltas through an Accumulator and
// checks the accumulated call's arguments: a delta that sends a call's
// whole arguments again, once they are one JSON object or array, is kept
// once (codex-lb before its #287 sends them twice more); any other piece
// is appended as it came, and the caller's chunk keeps what it carried.
func TestRestatedArguments(t *testing.T) {
	open := `{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}`
	piece := func(args string) string {
		return fmt.Sprintf(`{"index":0,"type":"function","function":{"arguments":%q}}`, args)
	}
	whole := `{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Zurich\"}"}}`
	tests := []struct {
		name   string
		deltas []string
		want   string
	}{
		{"codex-lb: pieces, the whole again, the call again", []string{open, piece(`{"city":`), piece(`"Zurich"}`), piece(`{"city":"Zurich"}`), whole}, `{"city":"Zurich"}`},
		{"a whole call in one delta, then again", []string{whole, whole}, `{"city":"Zurich"}`},
		{"an array restated", []string{open, piece(`[1,`), piece(`2]`), piece(`[1,2]`)}, `[1,2]`},
		{"a piece equal to an incomplete prefix", []string{open, piece(`{"a":"{"a":`), piece(`{"a":"{"a":`)}, `{"a":"{"a":{"a":"{"a":`},
		{"numbers, whose doubling is JSON", []string{open, piece(`1`), piece(`1`)}, `11`},
		{"a different whole object", []string{open, piece(`{"a":1}`), piece(`{"a":2}`)}, `{"a":1}{"a":2}`},
		{"an empty piece", []string{open, piece(`{}`), piece(``)}, `{}`},
	}
	chat := Chat(openai.ChatCompletionNewParams{}, true)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a Accumulator
			for i, d := range tt.deltas {
				data := fmt.Sprintf(`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[%s]}}]}`, d)
				ev, err := chat.Decode([]byte(data))
				if err != nil {
					t.Fatalf("Decode(%s): %v", data, err)
				}
				sent := ev.Chunk.Choices[0].Delta.ToolCalls[0].Function.Arguments
				if !a.Add(&ev) {
					t.Fatalf("Add refused delta %d: %s", i, d)
				}
				if got := ev.Chunk.Choices[0].Delta.ToolCalls[0].Function.Arguments; got != sent {
					t.Errorf("delta %d: the caller's chunk holds %q after Add, want %q as sent", i, got, sent)
				}
			}
			calls := a.Completion().Choices[0].Message.ToolCalls
			if len(calls) != 1 || calls[0].Function.Name != "get_weather" || calls[0].Function.Arguments != tt.want {
				t.Errorf("accumulated calls = %+v, want one get_weather(%s)", calls, tt.want)
			}
		})
	}
}

// TestRestartedArguments feeds a call's argument pieces through an
// Accumulator, then a finish chunk and a usage chunk, and checks the
// accumulated arguments at the finish and at the end: a start of one
// whole JSON object then that object (vLLM's end-of-stream flush after
// xlam's parser: vllm-project/vllm#51697) is the object once; arguments
// that are JSON, or no JSON of that form, stay as they came; a choice not
// yet finished keeps its arguments as they are so far.
func TestRestartedArguments(t *testing.T) {
	const w = `{"city": "Orlando", "state": "FL"}`
	tests := []struct {
		name         string
		pieces       []string
		want, before string // at the end, and before the finish
	}{
		{"xlam: a brace, then the whole", []string{"{" + w}, w, "{" + w},
		{"xlam: a brace, the rest, then the whole", []string{"{", w[1:] + w}, w, w + w},
		{"a longer start, then the whole", []string{`{"city": "Orl`, `ando", "state": "FL"}` + w}, w, `{"city": "Orlando", "state": "FL"}` + w},
		{"an empty object twice (emptyObjectArgs already)", []string{"{}{}"}, "{}", "{}"},
		{"trailing white space", []string{"{" + w + "\n"}, w, "{" + w + "\n"},
		{"whole JSON whose inner object starts like it", []string{`{"a": {"a": 1}}`}, `{"a": {"a": 1}}`, `{"a": {"a": 1}}`},
		{"two different objects", []string{`{"a": 1}{"b": 2}`}, `{"a": 1}{"b": 2}`, `{"a": 1}{"b": 2}`},
		{"a start that is not the object's", []string{`{"city": "Rome`, w}, `{"city": "Rome` + w, `{"city": "Rome` + w},
		{"cut arguments", []string{`{"city": "Orl`}, `{"city": "Orl`, `{"city": "Orl`},
		{"a nested object restarted", []string{`{"a": {`, `"b": 1}}`}, `{"a": {"b": 1}}`, `{"a": {"b": 1}}`},
		{"GLM-4 on vLLM before #44017: compact, then json.dumps' whole", []string{`{"location":"`, `大连市"`, `{"location": "大连市"}`}, `{"location": "大连市"}`, `{"location":"大连市"{"location": "大连市"}`},
		{"spaces inside a string are the string's", []string{`{"a":"x y"`, `{"a": "xy"}`}, `{"a":"x y"{"a": "xy"}`, `{"a":"x y"{"a": "xy"}`},
		{"cut after an inner object that starts like the outer", []string{`{"query": {"query": "x"}`}, `{"query": "x"}`, `{"query": {"query": "x"}`},
		{"an array twice is no object", []string{`[1, 2][1, 2]`}, `[1, 2][1, 2]`, `[1, 2][1, 2]`},
		{"a JSON string then the object", []string{`"{\"a\": 1}"{"a": 1}`}, `"{\"a\": 1}"{"a": 1}`, `"{\"a\": 1}"{"a": 1}`},
		{"free-form text in braces", []string{`{ x := {} }`}, `{ x := {} }`, `{ x := {} }`},
		{"an escaped quote inside a string", []string{`{"a":"say \"hi\""`, `{"a": "say \"hi\""}`}, `{"a": "say \"hi\""}`, `{"a":"say \"hi\""{"a": "say \"hi\""}`},
	}
	chat := Chat(openai.ChatCompletionNewParams{}, true)
	add := func(t *testing.T, a *Accumulator, data string) {
		t.Helper()
		ev, err := chat.Decode([]byte(data))
		if err != nil {
			t.Fatalf("Decode(%s): %v", data, err)
		}
		if !a.Add(&ev) {
			t.Fatalf("Add refused %s", data)
		}
	}
	args := func(a *Accumulator) string {
		calls := a.Completion().Choices[0].Message.ToolCalls
		if len(calls) != 1 {
			return fmt.Sprintf("%d calls", len(calls))
		}
		return calls[0].Function.Arguments
	}
	feed := func(t *testing.T, a *Accumulator, pieces []string) {
		t.Helper()
		add(t, a, `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_0","type":"function","function":{"name":"get_weather"}}]}}]}`)
		for _, p := range pieces {
			add(t, a, fmt.Sprintf(`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":%q}}]}}]}`, p))
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a Accumulator
			feed(t, &a, tt.pieces)
			if got := args(&a); got != tt.before {
				t.Errorf("before the finish: arguments %q, want %q as they came", got, tt.before)
			}
			add(t, &a, `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`)
			if got := args(&a); got != tt.want {
				t.Errorf("at the finish: arguments %q, want %q", got, tt.want)
			}
			add(t, &a, `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":5,"total_tokens":14}}`)
			if got := args(&a); got != tt.want {
				t.Errorf("after the usage chunk: arguments %q, want %q", got, tt.want)
			}
			// Cut at its token limit or by a filter, a choice's arguments
			// stay as they came, whatever word its server gives the cut:
			// CLIProxyAPI's "max_tokens", Z.ai's and new-api's
			// "model_context_window_exceeded" (see openAIFinishes).
			for _, finish := range []string{"length", "max_tokens", "model_context_window_exceeded", "MAX_TOKENS", "content_filter"} {
				var cut Accumulator
				feed(t, &cut, tt.pieces)
				add(t, &cut, `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"`+finish+`"}]}`)
				if got := args(&cut); got != tt.before {
					t.Errorf("finished for %q: arguments %q, want %q as they came", finish, got, tt.before)
				}
			}
		})
	}
}

// TestRestartedArgumentsCalls: each call of a finished choice is looked
// at (xlam's parallel calls, each flushed again), and a choice its server
// has not finished yet keeps its arguments as they came so far.
func TestRestartedArgumentsCalls(t *testing.T) {
	const w0, w1 = `{"city": "Orlando"}`, `{"city": "Tampa"}`
	chat := Chat(openai.ChatCompletionNewParams{N: openai.Int(2)}, true)
	var a Accumulator
	for _, data := range []string{
		`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_0","type":"function","function":{"name":"get_weather","arguments":"{"}}]}},{"index":1,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_2","type":"function","function":{"name":"get_weather","arguments":"{"}}]}}]}`,
		fmt.Sprintf(`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":%q}},{"index":1,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":%q}}]},"finish_reason":"tool_calls"},{"index":1,"delta":{"tool_calls":[{"index":0,"function":{"arguments":%q}}]}}]}`, w0, "{"+w1, w0),
	} {
		ev, err := chat.Decode([]byte(data))
		if err != nil {
			t.Fatalf("Decode(%s): %v", data, err)
		}
		if !a.Add(&ev) {
			t.Fatalf("Add refused %s", data)
		}
	}
	c := a.Completion()
	var got [][]string
	for _, ch := range c.Choices {
		var args []string
		for _, tc := range ch.Message.ToolCalls {
			args = append(args, tc.Function.Arguments)
		}
		got = append(got, args)
	}
	want := [][]string{{w0, w1}, {"{" + w0}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Completion() arguments by choice = %q, want %q", got, want)
	}
}

// BenchmarkRestartedObject is the end-of-stream look at a call's
// arguments: of 4 KiB and of 64 KiB that are one JSON object holding
// braces in a string, as most are, and of 64 KiB sent whole again after
// a "{" (xlam's flush) and after their first half.
func BenchmarkRestartedObject(b *testing.B) {
	whole := func(n int) string {
		return `{"path": "main.go", "content": "` + strings.Repeat(`func f() { return }\n`, n) + `"}`
	}
	w := whole(3270)
	for _, bc := range []struct {
		name, args string
		restarted  bool
	}{
		{"4KiB whole", whole(200), false},
		{"64KiB whole", w, false},
		{"64KiB brace then whole", "{" + w, true},
		{"64KiB half then whole", w[:len(w)/2] + w, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bc.args)))
			for b.Loop() {
				if _, ok := restartedObject(bc.args); ok != bc.restarted {
					b.Fatalf("restartedObject = %v, want %v", ok, bc.restarted)
				}
			}
		})
	}
}

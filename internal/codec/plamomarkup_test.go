package codec

import (
	"encoding/json"
	"testing"

	"github.com/openai/openai-go/v3"
)

// plamoMarkup is one call as PLaMo's template writes it, name and
// arguments given.
func plamoMarkup(name, args string) string {
	return plamoRequest + plamoName + name + plamoNameEnd + plamoArgs + plamoMsg + args + plamoArgsEnd + plamoRequestEnd
}

// TestPlamoCalls: the calls PLaMo wrote as its markup in a finished
// answer's text become its tool calls, the text around them kept; any
// other text, and a call to a function the request did not offer, stays
// as the server wrote it.
func TestPlamoCalls(t *testing.T) {
	read := plamoMarkup("read", `{"path":"README.md"}`)
	write := plamoMarkup("write", `{"path":"notes.txt","content":"ok"}`)
	for _, tc := range []struct {
		name, content, finish string
		calls                 int
		want                  string
		wantCalls             []string // name(arguments)
	}{
		{"wrapped", "I will inspect the file.\n" + plamoRequests + read + plamoRequestsEnd, "stop", 0,
			"I will inspect the file.", []string{`read({"path":"README.md"})`}},
		{"two, one wrapped", plamoRequests + read + plamoRequestsEnd + write, "stop", 0,
			"", []string{`read({"path":"README.md"})`, `write({"path":"notes.txt","content":"ok"})`}},
		{"no msg tag", "x" + plamoRequest + plamoName + "read" + plamoNameEnd + plamoArgs + `{"a":1}` + plamoArgsEnd + plamoRequestEnd, "stop", 0,
			"x", []string{`read({"a":1})`}},
		{"not closed", "x" + plamoRequest + plamoName + "read", "length", 0, "x" + plamoRequest + plamoName + "read", nil},
		{"arguments no object", "x" + plamoMarkup("read", `["a"]`), "stop", 0, "x" + plamoMarkup("read", `["a"]`), nil},
		{"no name", plamoMarkup(" ", `{}`), "stop", 0, plamoMarkup(" ", `{}`), nil},
		{"not finished", "x" + read, "", 0, "x" + read, nil},
		{"calls of its own", "x" + read, "tool_calls", 1, "x" + read, []string{"own({})"}},
		{"plain text", "<|plamo:msg|> is a tag", "stop", 0, "<|plamo:msg|> is a tag", nil},
		{"a function not offered", "x" + plamoMarkup("delete", `{"path":"/"}`), "stop", 0, "x" + plamoMarkup("delete", `{"path":"/"}`), nil},
		{"one of two not offered", read + plamoMarkup("delete", `{}`), "stop", 0, read + plamoMarkup("delete", `{}`), nil},
	} {
		c := openai.ChatCompletion{Choices: []openai.ChatCompletionChoice{{FinishReason: tc.finish}}}
		m := &c.Choices[0].Message
		m.Content = tc.content
		for range tc.calls {
			m.ToolCalls = append(m.ToolCalls, openai.ChatCompletionMessageToolCallUnion{ID: "own", Type: "function",
				Function: openai.ChatCompletionMessageFunctionToolCallFunction{Name: "own", Arguments: "{}"}})
		}
		plamoCalls(&c, []string{"read", "write"})
		var got []string
		for i, call := range m.ToolCalls {
			got = append(got, call.Function.Name+"("+call.Function.Arguments+")")
			if tc.calls == 0 && (call.Type != "function" || call.ID != "call_plamo_"+string(rune('0'+i))) {
				t.Errorf("%s: call %d typed %q, id %q; want function, call_plamo_%d", tc.name, i, call.Type, call.ID, i)
			}
		}
		if m.Content != tc.want || len(got) != len(tc.wantCalls) {
			t.Errorf("%s: plamoCalls = %q, %q; want %q, %q", tc.name, m.Content, got, tc.want, tc.wantCalls)
			continue
		}
		for i := range got {
			if got[i] != tc.wantCalls[i] {
				t.Errorf("%s: call %d = %s, want %s", tc.name, i, got[i], tc.wantCalls[i])
			}
		}
	}
}

// TestPlamoCallsWhole: a whole answer whose text holds PLaMo's markup
// reaches the caller with the call, in its message and in the delta of
// the chunk a stream given the whole answer shows, finished "tool_calls".
func TestPlamoCallsWhole(t *testing.T) {
	content, err := json.Marshal("Reading.\n" + plamoMarkup("read", `{"path":"README.md"}`))
	if err != nil {
		t.Fatal(err)
	}
	data := []byte(`{"id":"m1","object":"chat.completion","model":"plamo-3.0-prime-beta","choices":[{"index":0,"finish_reason":"stop",` +
		`"message":{"role":"assistant","content":` + string(content) + `}}]}`)
	res := new(openai.ChatCompletion)
	if err := json.Unmarshal(data, res); err != nil {
		t.Fatal(err)
	}
	p := openai.ChatCompletionNewParams{Tools: []openai.ChatCompletionToolUnionParam{
		openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{Name: "read"})}}
	ev, err := Chat(p, true).(chat).wholeEvent(res)
	if err != nil {
		t.Fatal(err)
	}
	ch, d := res.Choices[0], ev.Chunk.Choices[0].Delta
	if ch.Message.Content != "Reading." || len(ch.Message.ToolCalls) != 1 || ch.Message.ToolCalls[0].Function.Name != "read" || ch.FinishReason != "tool_calls" {
		t.Errorf("wholeEvent: message %q with %d calls, finish %q; want \"Reading.\", the call read, \"tool_calls\"",
			ch.Message.Content, len(ch.Message.ToolCalls), ch.FinishReason)
	}
	if d.Content != "Reading." || len(d.ToolCalls) != 1 || d.ToolCalls[0].Function.Arguments != `{"path":"README.md"}` {
		t.Errorf("wholeEvent: delta %q with calls %+v, want \"Reading.\" and read's arguments", d.Content, d.ToolCalls)
	}
}

// TestPlamoCallsWholeNoTools: a whole answer that quotes PLaMo's markup
// to a request that offered no tool keeps its text and its "stop".
func TestPlamoCallsWholeNoTools(t *testing.T) {
	content, err := json.Marshal("The template writes a call so: " + plamoMarkup("read", `{"path":"README.md"}`))
	if err != nil {
		t.Fatal(err)
	}
	data := []byte(`{"id":"m1","object":"chat.completion","model":"m","choices":[{"index":0,"finish_reason":"stop",` +
		`"message":{"role":"assistant","content":` + string(content) + `}}]}`)
	res := new(openai.ChatCompletion)
	if err := json.Unmarshal(data, res); err != nil {
		t.Fatal(err)
	}
	ev, err := Chat(openai.ChatCompletionNewParams{}, true).(chat).wholeEvent(res)
	if err != nil {
		t.Fatal(err)
	}
	ch, d := res.Choices[0], ev.Chunk.Choices[0].Delta
	if len(ch.Message.ToolCalls) != 0 || ch.FinishReason != "stop" || d.Content != ch.Message.Content || !json.Valid(content) ||
		ch.Message.Content != "The template writes a call so: "+plamoMarkup("read", `{"path":"README.md"}`) {
		t.Errorf("wholeEvent: message %q with %d calls, finish %q; want the text as sent, no call, \"stop\"",
			ch.Message.Content, len(ch.Message.ToolCalls), ch.FinishReason)
	}
}

package codec

import (
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/respjson"
)

// TestHarmonyChannels: gpt-oss's channels written as a finished answer's
// text become its reasoning, text and calls; a text that only quotes the
// markup, a channel not known, or a call to a function the request did
// not offer stays as the server wrote it.
func TestHarmonyChannels(t *testing.T) {
	analysis := "<|channel|>analysis<|message|>Think.<|end|>"
	final := "<|start|>assistant<|channel|>final<|message|>Hello.<|return|>"
	call := "<|start|>assistant<|channel|>commentary to=functions.read <|constrain|>json<|message|>{\"path\":\"a\"}<|call|>"
	for _, tc := range []struct {
		name, content, finish string
		reasoning             string // the message's own
		want, wantReasoning   string
		wantCalls             []string // name(arguments)
	}{
		{"analysis and final", analysis + final, "stop", "", "Hello.", "Think.", nil},
		{"analysis and call", analysis + call, "stop", "", "", "Think.", []string{`read({"path":"a"})`}},
		{"preamble and bare recipient", "<|channel|>commentary<|message|>Reading.<|end|><|start|>assistant<|channel|>commentary to=read <|constrain|>json<|message|>{\"path\":\"b\"}", "stop", "",
			"Reading.", "", []string{`read({"path":"b"})`}},
		{"recipient in the role section", analysis + "<|start|>assistant to=functions.read<|channel|>commentary json<|message|>{\"path\":\"c\"}<|call|>", "stop", "",
			"", "Think.", []string{`read({"path":"c"})`}},
		{"output opening with the role section's recipient", " to=functions.read<|channel|>commentary <|constrain|>json<|message|>{\"path\":\"d\"}<|call|>", "stop", "",
			"", "", []string{`read({"path":"d"})`}},
		{"role section not a recipient", "<|start|>assistant user<|channel|>final<|message|>x", "stop", "", "<|start|>assistant user<|channel|>final<|message|>x", "", nil},
		{"messages of one kind a line apart", analysis + "<|start|>assistant<|channel|>analysis<|message|>More.<|end|><|start|>assistant<|channel|>commentary<|message|>Reading.<|end|>" + final, "stop", "",
			"Reading.\nHello.", "Think.\nMore.", nil},
		{"cut in the analysis", "<|channel|>analysis<|message|>Thin", "length", "", "", "Thin", nil},
		{"not finished", analysis + final, "", "", analysis + final, "", nil},
		{"reasoning of its own", analysis + final, "stop", "R", analysis + final, "R", nil},
		{"quoted mid-text", "Harmony writes " + analysis, "stop", "", "Harmony writes " + analysis, "", nil},
		{"channel not known", "<|channel|>secret<|message|>x", "stop", "", "<|channel|>secret<|message|>x", "", nil},
		{"function not offered", analysis + "<|channel|>commentary to=functions.rm<|message|>{}", "stop", "",
			analysis + "<|channel|>commentary to=functions.rm<|message|>{}", "", nil},
		{"arguments no object", "<|channel|>commentary to=read<|message|>[1]", "stop", "", "<|channel|>commentary to=read<|message|>[1]", "", nil},
		{"no message tag", "<|channel|>final Hello", "stop", "", "<|channel|>final Hello", "", nil},
	} {
		c := openai.ChatCompletion{Choices: []openai.ChatCompletionChoice{{FinishReason: tc.finish}}}
		m := &c.Choices[0].Message
		m.Content = tc.content
		if tc.reasoning != "" {
			m.JSON.ExtraFields = map[string]respjson.Field{reasoningContent: respjson.NewField(`"` + tc.reasoning + `"`)}
		}
		harmonyChannels(&c, []string{"read"})
		var got []string
		for _, call := range m.ToolCalls {
			got = append(got, call.Function.Name+"("+call.Function.Arguments+")")
		}
		if m.Content != tc.want || len(got) != len(tc.wantCalls) || reasoningOf(m) != tc.wantReasoning {
			t.Errorf("%s: harmonyChannels = %q, %q, reasoning %q; want %q, %q, %q", tc.name, m.Content, got, reasoningOf(m), tc.want, tc.wantCalls, tc.wantReasoning)
			continue
		}
		for i := range got {
			if got[i] != tc.wantCalls[i] {
				t.Errorf("%s: call %d = %s, want %s", tc.name, i, got[i], tc.wantCalls[i])
			}
		}
	}
}

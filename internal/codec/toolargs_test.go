package codec

import (
	"testing"

	"github.com/openai/openai-go/v3"
)

func TestEmptyObjectArgs(t *testing.T) {
	for _, tc := range []struct{ args, want string }{
		{`{}{"city": "Paris"}`, `{"city": "Paris"}`}, // Helicone's relay of Anthropic
		{`{} {"city": "Paris"}`, `{"city": "Paris"}`},
		{`{}`, `{}`}, // a call without arguments
		{`{"city": "Paris"}`, `{"city": "Paris"}`},
		{`{}{"city": "Par`, `{}{"city": "Par`}, // not yet whole: left as it came
		{`{}[1]`, `{}[1]`},                     // not an object after it
		{`{} `, `{} `},
	} {
		c := &openai.ChatCompletion{Choices: []openai.ChatCompletionChoice{{}}}
		c.Choices[0].Message.ToolCalls = []openai.ChatCompletionMessageToolCallUnion{{Type: "function"}}
		c.Choices[0].Message.ToolCalls[0].Function.Arguments = tc.args
		emptyObjectArgs(c)
		if got := c.Choices[0].Message.ToolCalls[0].Function.Arguments; got != tc.want {
			t.Errorf("emptyObjectArgs(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}

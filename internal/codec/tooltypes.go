package codec

import (
	"iter"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/tidwall/gjson"
)

// A chat tool call's type says which variant it is, and openai-go's
// ToParam builds the next request's assistant message by it: a call whose
// type is neither "function" nor "custom" becomes null there
// (`"tool_calls":[null]`), and the agent loop's next request is refused.
// Mistral's models on Azure AI Foundry, and vLLM with some tool_choice
// settings, stream their calls without a type (vercel/ai#12901,
// vllm-project/vllm#16340): openai-go's accumulator then leaves it empty.
//
// Custom tools (GPT-5's free-form tools, `"type":"custom"`) stream their
// name and input in a "custom" object of the delta
// (openai/openai-openapi#576), which openai-go's chunk type does not have
// and its accumulator drops: the accumulated call has neither.

// functionTypes gives the type "function" to every call of c's messages
// that has none.
func functionTypes(c *openai.ChatCompletion) {
	for call := range calls(c) {
		if call.Type == "" {
			call.Type = "function"
		}
	}
}

// calls yields every tool call of c's messages, to be changed in place.
func calls(c *openai.ChatCompletion) iter.Seq[*openai.ChatCompletionMessageToolCallUnion] {
	return func(yield func(*openai.ChatCompletionMessageToolCallUnion) bool) {
		for i := range c.Choices {
			calls := c.Choices[i].Message.ToolCalls
			for j := range calls {
				if !yield(&calls[j]) {
					return
				}
			}
		}
	}
}

// customCalls gathers the name and input of a stream's custom tool calls,
// by choice index and then by the accumulator's call index. The zero value
// is ready to use.
type customCalls map[int64]map[int64]*customCall

// customCall is one custom tool call's name and input so far.
type customCall struct{ name, input strings.Builder }

// add gathers the custom parts of c, a chunk whose tool-call deltas
// ToolSlots placed.
func (cc *customCalls) add(c *openai.ChatCompletionChunk) {
	for i := range c.Choices {
		ch := &c.Choices[i]
		for j := range ch.Delta.ToolCalls {
			d := &ch.Delta.ToolCalls[j]
			f, ok := d.JSON.ExtraFields["custom"]
			if !ok {
				continue
			}
			part := gjson.Parse(f.Raw())
			if !part.IsObject() {
				continue
			}
			if *cc == nil {
				*cc = customCalls{}
			}
			calls := (*cc)[ch.Index]
			if calls == nil {
				calls = map[int64]*customCall{}
				(*cc)[ch.Index] = calls
			}
			call := calls[d.Index]
			if call == nil {
				call = &customCall{}
				calls[d.Index] = call
			}
			if name := part.Get("name").String(); name != call.name.String() {
				call.name.WriteString(name)
			}
			call.input.WriteString(part.Get("input").String())
		}
	}
}

// setOn sets the name and input of each custom call on c's messages.
func (cc customCalls) setOn(c *openai.ChatCompletion) {
	for i := range c.Choices {
		ch := &c.Choices[i]
		for k, call := range cc[ch.Index] {
			if k < 0 || k >= int64(len(ch.Message.ToolCalls)) {
				continue
			}
			tc := &ch.Message.ToolCalls[k]
			tc.Type = "custom"
			tc.Custom.Name, tc.Custom.Input = call.name.String(), call.input.String()
		}
	}
}

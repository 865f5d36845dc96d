package codec

import (
	"strings"

	"github.com/openai/openai-go/v3"
)

// A call of the legacy functions API, streamed.
//
// A request that offers `functions` (deprecated for `tools`, and still
// served by OpenAI and Azure OpenAI) is answered with a call streamed as
// delta.function_call: the name, and arguments "", on the first delta,
// the arguments in pieces after it, then finish_reason "function_call"
// (openai/openai-python#488, openai/openai-node#188). openai-go's
// accumulator reads content, refusals and tool_calls, never
// function_call: the accumulated message held no call, and its
// ToAssistantMessageParam none for the next request.

// functionCalls gathers the legacy function call of each choice of a
// stream, by choice index. The zero value is ready to use.
type functionCalls map[int64]*functionCall

// functionCall is one choice's legacy call so far.
type functionCall struct{ name, arguments strings.Builder }

// add gathers the function_call deltas of c. A name equal to the name so
// far is not appended again: llama-cpp-python repeats the whole name on
// every delta (llama_cpp/llama_chat_format.py,
// _stream_response_to_function_stream).
func (fc *functionCalls) add(c *openai.ChatCompletionChunk) {
	for i := range c.Choices {
		//lint:ignore SA1019 servers still stream legacy function calls
		d := c.Choices[i].Delta.FunctionCall
		if d.Name == "" && d.Arguments == "" {
			continue
		}
		if *fc == nil {
			*fc = functionCalls{}
		}
		call := (*fc)[c.Choices[i].Index]
		if call == nil {
			call = &functionCall{}
			(*fc)[c.Choices[i].Index] = call
		}
		if d.Name != call.name.String() {
			call.name.WriteString(d.Name)
		}
		call.arguments.WriteString(d.Arguments)
	}
}

// setOn sets each choice's legacy call on its message, unless the message
// holds tool calls: a server that streams the same call both ways
// (llama-cpp-python) has it in its tool call, and the next request's
// assistant message then carries it once.
func (fc functionCalls) setOn(c *openai.ChatCompletion) {
	for i := range c.Choices {
		m := &c.Choices[i].Message
		call := fc[c.Choices[i].Index]
		if call == nil || len(m.ToolCalls) > 0 {
			continue
		}
		//lint:ignore SA1019 servers still stream legacy function calls
		m.FunctionCall.Name, m.FunctionCall.Arguments = call.name.String(), call.arguments.String()
	}
}

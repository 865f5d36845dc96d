package tokenpace

// How a Router call treats tool calls.
//
// A continuation carries text only: the output so far as an assistant
// message (chat, Responses) or the end of the prompt (completions). A
// tool call cut midway cannot be carried on that way, and a route asked
// again would send the call anew, which the caller would read as a
// second call or merge into the first. So a call never continues a chain
// that handed the caller a tool-call delta: when such a stream stalls,
// falls under MinTPS or breaks, the call ends there, as without
// Policy.Continue, and Err reports why (the budget breach or the
// failure). A stream whose Err is not nil may thus end inside a tool
// call: its tool calls are incomplete and must not be run. A route that
// fails before any output still falls back as usual, and the caller then
// reads the fallback's tool calls only.

// carriesToolCall reports whether chunk ar carries a tool call: a
// tool-call or function-call delta of chat, a function-call arguments
// delta or function-call item of the Responses API.
func carriesToolCall(ar *arrived) bool {
	if ev := ar.resp; ev != nil {
		return ev.Type == respArgsDelta || (ev.Type == "response.output_item.added" && ev.Item.Type == "function_call")
	}
	for i := range ar.chunk.Choices {
		d := &ar.chunk.Choices[i].Delta
		//lint:ignore SA1019 servers still stream legacy function calls
		if len(d.ToolCalls) > 0 || d.FunctionCall.Name != "" || d.FunctionCall.Arguments != "" {
			return true
		}
	}
	return false
}

// canContinue reports whether a continuation can carry on the call's
// output: not after a tool call (see above), nor for a completion whose
// prompt is not one string.
func (c *call) canContinue() bool {
	for _, tr := range c.chain {
		if tr.a != nil && tr.a.calledTool() {
			return false
		}
	}
	return c.completion == nil || c.completion.Prompt.OfString.Valid()
}

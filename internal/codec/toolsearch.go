package codec

// callOutput reports whether an output item of type t, executed as
// execution says (its "execution" member, "" where it has none), holds a
// call the caller acts on: a call of callItem, or a tool search the
// client runs. A tool_search tool whose execution is "client" has its
// model's search returned as a tool_search_call item for the caller to
// run, whose results (a tool_search_output item) the next request sends
// back: that call is the turn's answer, often its only item, whole in its
// added and done events with no delta (openai-go v3
// responses.ResponseToolSearchCall; vLLM's /v1/responses since late 2026,
// vllm-project/vllm vllm/entrypoints/openai/responses/tool_search.py,
// make_tool_search_call). A search the server runs ("server") is not: the
// answer follows it, as it follows a web search.
func callOutput(t, execution string) bool {
	return callItem(t) || t == "tool_search_call" && execution == "client"
}

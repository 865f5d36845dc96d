package codec

import (
	"slices"
	"strings"

	"github.com/openai/openai-go/v3"
)

// PLaMo's tool calls written as text.
//
// Preferred Networks' PLaMo API (api.platform.preferredai.jp/v1) may
// stream a model's tool calls as the markup of PLaMo's chat template in
// the answer's content, not as tool calls, and finish the answer "stop":
// each call `<|plamo:begin_tool_request:plamo|>` with its name between
// `<|plamo:begin_tool_name:plamo|>` and `<|plamo:end_tool_name:plamo|>`
// and its arguments, a JSON object after `<|plamo:msg|>`, between
// `<|plamo:begin_tool_arguments:plamo|>` and
// `<|plamo:end_tool_arguments:plamo|>`, then
// `<|plamo:end_tool_request:plamo|>`; calls may be wrapped in
// `<|plamo:begin_tool_requests:plamo|>` … `<|plamo:end_tool_requests:plamo|>`
// (openclaw/openclaw extensions/plamo/stream.ts, parsePlamoToolCalls and
// normalizePlamoToolMarkupInMessage, which makes them calls; its
// index.test.ts streams them so). A caller read the calls as the answer's
// text, and an agent loop took the turn for its last.

// The markup of PLaMo's tool calls.
const (
	plamoRequests    = "<|plamo:begin_tool_requests:plamo|>"
	plamoRequestsEnd = "<|plamo:end_tool_requests:plamo|>"
	plamoRequest     = "<|plamo:begin_tool_request:plamo|>"
	plamoRequestEnd  = "<|plamo:end_tool_request:plamo|>"
	plamoName        = "<|plamo:begin_tool_name:plamo|>"
	plamoNameEnd     = "<|plamo:end_tool_name:plamo|>"
	plamoArgs        = "<|plamo:begin_tool_arguments:plamo|>"
	plamoArgsEnd     = "<|plamo:end_tool_arguments:plamo|>"
	plamoMsg         = "<|plamo:msg|>"
)

// plamoCalls makes the calls every finished choice of c, with no tool
// call of its own, holds as PLaMo's markup in its content its tool calls
// (type "function", ids "call_plamo_<n>" in their order), and its content
// the text around them, trimmed. offered are the names of the functions
// the request offered (see OfferedFunctions): a call to any other, or any
// markup when it offered none, is text that quotes the markup (a model
// explaining PLaMo's template, code that parses it), never a call the
// caller's agent loop would run; openclaw's PLaMo provider, which reads
// the markup, speaks to PLaMo alone. A content with a call that does not
// parse (no name, a name not offered, arguments that are no JSON object,
// a block not closed) stays as it is. Only a content that holds the
// markup's opening is parsed: the check costs one search of each finished
// message, and none when no function was offered.
func plamoCalls(c *openai.ChatCompletion, offered []string) {
	if len(offered) == 0 {
		return
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		m := &ch.Message
		if ch.FinishReason == "" || len(m.ToolCalls) > 0 || !strings.Contains(m.Content, plamoRequest) {
			continue
		}
		text, calls, ok := parsePlamoCalls(m.Content, offered)
		if !ok {
			continue
		}
		m.Content, m.ToolCalls = text, calls
	}
}

// OfferedFunctions returns the names of the functions p offers as tools,
// nil for none.
func OfferedFunctions(p openai.ChatCompletionNewParams) []string {
	var names []string
	for _, t := range p.Tools {
		if f := t.GetFunction(); f != nil && f.Name != "" {
			names = append(names, f.Name)
		}
	}
	return names
}

// parsePlamoCalls returns content without PLaMo's call markup, trimmed,
// and the calls it held; ok is false when a call does not parse or calls
// a function not in offered.
func parsePlamoCalls(content string, offered []string) (text string, calls []openai.ChatCompletionMessageToolCallUnion, ok bool) {
	var rest strings.Builder
	s := content
	for {
		before, block, found := strings.Cut(s, plamoRequest)
		rest.WriteString(before)
		if !found {
			break
		}
		body, after, closed := strings.Cut(block, plamoRequestEnd)
		if !closed {
			return "", nil, false
		}
		name, args, ok := parsePlamoCall(body)
		if !ok || !slices.Contains(offered, name) {
			return "", nil, false
		}
		calls = append(calls, markupCall("plamo", len(calls), name, args))
		s = after
	}
	text = strings.NewReplacer(plamoRequests, "", plamoRequestsEnd, "").Replace(rest.String())
	return strings.TrimSpace(text), calls, true
}

// parsePlamoCall returns the name and the arguments, a JSON object as
// written, trimmed, of one call's body, the markup between its opening and
// closing tags.
func parsePlamoCall(body string) (name, args string, ok bool) {
	_, n, ok1 := strings.Cut(body, plamoName)
	n, _, ok2 := strings.Cut(n, plamoNameEnd)
	_, a, ok3 := strings.Cut(body, plamoArgs)
	a, _, ok4 := strings.Cut(a, plamoArgsEnd)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return "", "", false
	}
	if _, m, found := strings.Cut(a, plamoMsg); found {
		a = m
	}
	name = strings.TrimSpace(n)
	args, isObject := markupArgs(a)
	if name == "" || !isObject {
		return "", "", false
	}
	return name, args, true
}

package simulate

import (
	"strconv"
	"unicode/utf8"
)

// ToolCall is one scripted function call of a reply: the function's name
// and its arguments (JSON text, sent as is).
type ToolCall struct {
	Name      string
	Arguments string
}

// WithToolCalls scripts tool calls: for each chat completions or Responses
// request, f returns the calls the reply makes, or none to reply with text
// as usual (WithReply, or generated). The calls are streamed as OpenAI and
// vLLM stream them: a call's first delta carries its id and name, its
// arguments follow over several deltas of a few bytes each (one token
// each), and a chat reply ends with finish_reason "tool_calls"; a
// Responses stream has a function_call output item per call with
// response.function_call_arguments.delta events. max_tokens still applies
// (a cut reply ends with "length"). Legacy completions never make calls.
func WithToolCalls(f func(ReplyInfo) []ToolCall) Option {
	return optionFunc(func(c *config) { c.toolCalls = f })
}

// argBytes is how many bytes of a call's arguments one token carries.
const argBytes = 4

// callPiece is one token of a tool-call reply: the start of call index
// (id and name), or a piece of its arguments.
type callPiece struct {
	index int
	start bool
	args  string
}

// callDelta is what one chunk carries of call index: its id and name if
// it starts there (start), and a piece of its arguments.
type callDelta struct {
	index    int
	start    bool
	id, name string
	args     string
}

// callID returns the id of call index of request id.
func callID(id uint64, index int) string {
	return "call_" + strconv.FormatUint(id, 10) + "_" + strconv.Itoa(index)
}

// callPieces cuts calls into tokens: a start, then the arguments in pieces
// of at most argBytes bytes, never inside a UTF-8 sequence.
func callPieces(calls []ToolCall) []callPiece {
	var out []callPiece
	for i, c := range calls {
		out = append(out, callPiece{index: i, start: true})
		for a := c.Arguments; a != ""; {
			n := min(argBytes, len(a))
			for n < len(a) && !utf8.RuneStart(a[n]) {
				n++
			}
			out = append(out, callPiece{index: i, args: a[:n]})
			a = a[n:]
		}
	}
	return out
}

// toolReply is a reply of tool calls, handed out token by token.
type toolReply struct {
	calls  []ToolCall
	pieces []callPiece
	id     uint64 // the request's, for call ids
	pos    int
}

// take returns the deltas of the next k tokens, one per call they touch.
func (t *toolReply) take(k int) []callDelta {
	var out []callDelta
	for ; k > 0 && t.pos < len(t.pieces); k-- {
		p := t.pieces[t.pos]
		t.pos++
		if n := len(out); n > 0 && out[n-1].index == p.index && !p.start {
			out[n-1].args += p.args
			continue
		}
		d := callDelta{index: p.index, start: p.start, args: p.args}
		if p.start {
			d.id, d.name = callID(t.id, p.index), t.calls[p.index].Name
		}
		out = append(out, d)
	}
	return out
}

// sent returns the calls as far as they were handed out: what a client
// accumulated, for a non-streaming reply.
func (t *toolReply) sent() []callDelta {
	var out []callDelta
	for _, p := range t.pieces[:t.pos] {
		if p.start {
			out = append(out, callDelta{index: p.index, start: true, id: callID(t.id, p.index), name: t.calls[p.index].Name})
			continue
		}
		out[len(out)-1].args += p.args
	}
	return out
}

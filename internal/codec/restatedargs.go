package codec

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/openai/openai-go/v3"
)

// A call's whole arguments sent again.
//
// Gateways that make a chat stream of OpenAI's Responses stream turn each
// of its function-call events into a tool-call delta whose arguments
// openai-go's accumulator appends: the argument deltas, then
// response.function_call_arguments.done's whole arguments, then
// response.output_item.done's call with its id, name and whole arguments
// once more. codex-lb did so before its #287 (Soju06/codex-lb#284: the
// arguments {"city":"Zurich","unit":"C"} three times over;
// app/core/openai/chat_responses.py, iter_chat_chunks), as others report
// of their bridges (elizaOS/eliza#16973, lidge-jun/opencodex#361). Appended,
// the call's arguments are two or three JSON objects in a row, which no
// tool takes. A delta whose arguments are its call's whole arguments so
// far, when those are already one whole JSON object or array, restates
// them: the accumulation keeps them once. Appended, the result could
// never be JSON, so no server's answer is read otherwise than it meant;
// the caller's chunk, as Current gives it, keeps what the server sent.

// restatedArguments returns c, or a copy of it whose tool-call deltas
// that restate their call's whole arguments so far, as acc holds them,
// carry no arguments. c is never changed. A delta's arguments are
// compared only with a call's of the same length, and checked for JSON
// only when they are the same: a piece of a call's arguments costs a
// length comparison.
func restatedArguments(acc *openai.ChatCompletion, c *openai.ChatCompletionChunk) *openai.ChatCompletionChunk {
	out := c
	for i := range c.Choices {
		ci := c.Choices[i].Index
		if ci < 0 || ci >= int64(len(acc.Choices)) {
			continue
		}
		calls := acc.Choices[ci].Message.ToolCalls
		for j, d := range c.Choices[i].Delta.ToolCalls {
			if d.Index < 0 || d.Index >= int64(len(calls)) || !restates(calls[d.Index].Function.Arguments, d.Function.Arguments) {
				continue
			}
			if out == c {
				cc := *c
				cc.Choices = slices.Clone(c.Choices)
				out = &cc
			}
			if &out.Choices[i].Delta.ToolCalls[0] == &c.Choices[i].Delta.ToolCalls[0] {
				out.Choices[i].Delta.ToolCalls = slices.Clone(c.Choices[i].Delta.ToolCalls)
			}
			out.Choices[i].Delta.ToolCalls[j].Function.Arguments = ""
		}
	}
	return out
}

// restates reports whether piece, a delta's arguments, is so far, its
// call's whole arguments, again, and so far is one whole JSON object or
// array.
func restates(soFar, piece string) bool {
	if piece == "" || piece != soFar {
		return false
	}
	b := bytes.TrimLeft([]byte(soFar), " \t\r\n")
	return len(b) > 0 && (b[0] == '{' || b[0] == '[') && json.Valid(b)
}

// A call's whole arguments sent again after a part of them.
//
// Servers that stream a tool parser's output send, at the end of a
// stream, the arguments the parser parsed but did not stream: the parsed
// arguments as json.dumps writes them, less what the parser recorded as
// streamed. Where that record is not a start of json.dumps' text, the
// whole arguments come after what was streamed. vLLM's xlam parser keeps
// its progress elsewhere, and vLLM appends the whole arguments to the
// final delta (vllm/parser/abstract_parser.py,
// _append_unstreamed_tool_args, since vllm-project/vllm#44017;
// vllm-project/vllm#51697): `{` and then the whole object, or the whole
// object twice, by the step at which the arguments closed. Before #44017
// vLLM sent expected_call.replace(actual_call, "", 1) in place of the
// final delta, the whole arguments when what was streamed is written
// without json.dumps' spaces, as its GLM-4 parser streamed them
// (vllm-project/vllm#36410, #37385: `{"location":"大连市"` and then
// `{"location": "大连市"}`). Joined, they are no JSON, and the call
// cannot be run. Arguments that are no JSON, made of a start of a whole
// JSON object (but for white space between its tokens) followed by that
// object, are that object: restartedArguments keeps it. Only a choice
// the server finished is read so, once its every delta came, and not
// one cut at its token limit or by a filter, whose arguments may end
// anywhere. The caller's chunks, as Current gives them, keep what the
// server sent: a caller that adds up the deltas itself gets the
// arguments twice where Accumulated has them once.

// restartedArguments gives each call of c's finished choices whose
// arguments are a start of one whole JSON object, then that object, the
// object alone. It reads the finish reasons under OpenAI's names (see
// openAIFinish): a choice cut at its token limit or by a filter keeps its
// arguments as they came, whatever word its server gave the cut
// ("max_tokens", "model_context_window_exceeded").
func restartedArguments(c *openai.ChatCompletion) {
	for i := range c.Choices {
		if f := c.Choices[i].FinishReason; f == "" || f == "length" || f == "content_filter" {
			continue
		}
		calls := c.Choices[i].Message.ToolCalls
		for j := range calls {
			if w, ok := restartedObject(calls[j].Function.Arguments); ok {
				calls[j].Function.Arguments = w
			}
		}
	}
}

// maxRestartTries bounds the candidates restartedObject checks for JSON,
// so that arguments made to hold many look no more than a few times at
// their bytes.
const maxRestartTries = 4

// restartedObject returns the whole JSON object w when args, but for
// white space at its end, is a start of w then w, and args itself is no
// JSON. It looks for w only where a "{" follows what would be its start
// again, so that arguments of any other form cost a scan of their bytes.
func restartedObject(args string) (w string, ok bool) {
	t := strings.TrimRight(args, " \t\r\n")
	if len(t) < 3 || t[0] != '{' || t[len(t)-1] != '}' {
		return "", false
	}
	tries := 0
	for i := 1; i < len(t)-1 && tries < maxRestartTries; i++ {
		if t[i] != '{' || !startsLike(t[i:], t[:i]) {
			continue
		}
		tries++
		if !json.Valid([]byte(t[i:])) {
			continue
		}
		if json.Valid([]byte(t)) {
			return "", false
		}
		return t[i:], true
	}
	return "", false
}

// startsLike reports whether w begins with the JSON text a, white space
// between tokens aside: `{"a":"b"` begins `{"a": "b"}`.
func startsLike(w, a string) bool {
	i, j := 0, 0
	inString, escaped := false, false
	for {
		if !inString {
			for i < len(a) && isJSONSpace(a[i]) {
				i++
			}
			for j < len(w) && isJSONSpace(w[j]) {
				j++
			}
		}
		if i == len(a) {
			return true
		}
		if j == len(w) || a[i] != w[j] {
			return false
		}
		switch c := a[i]; {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		}
		i++
		j++
	}
}

// isJSONSpace reports whether c is white space between JSON tokens.
func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

package codec

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/respjson"
)

// gpt-oss's harmony channels written as text.
//
// A server that runs gpt-oss without parsing its output format ("harmony")
// streams the model's whole output as the answer's content, its channels'
// markup and all, and finishes it "stop": each message
// `<|channel|>NAME<|message|>BODY` closed by `<|end|>`, `<|call|>` or
// `<|return|>`, the next opened by `<|start|>assistant`; the analysis
// channel holds the model's reasoning, the final channel the answer, and
// a commentary message addressed `to=functions.NAME` (a `<|constrain|>json`
// beside it; the address in the header's role section,
// `<|start|>assistant to=functions.NAME<|channel|>commentary json`, as
// well) a call whose arguments are its body
// (github.com/openai/harmony docs/format.md, "Receiving tool calls";
// ggml-org/llama.cpp common/chat.cpp, common_chat_parse_gpt_oss, reads
// both places; ggml-org/llama.cpp#15181, on
// what a client of `--reasoning-format none` gets). LM Studio 0.3.21 did
// so for a coding agent's tool calls (Kilo-Org/kilocode#1775, the content
// quoted there), mlx_lm.server for aider's benchmark (ml-explore/mlx-lm
// #1867), and other servers alike (scouzi1966/maclocal-api#121,
// kekzl/imp#768). A caller read the reasoning as the answer's text, the
// call as text it never ran, and an agent loop took the turn for its last.

// The markup of harmony's messages.
const (
	harmonyStart     = "<|start|>"
	harmonyChannel   = "<|channel|>"
	harmonyMessage   = "<|message|>"
	harmonyConstrain = "<|constrain|>"
)

// harmonyEnds are the tokens that close a harmony message.
var harmonyEnds = [...]string{"<|end|>", "<|call|>", "<|return|>", harmonyStart}

// harmonyChannels makes, of every finished choice of c with no tool call
// and no reasoning of its own whose content opens with harmony's channel
// markup, the analysis channel its reasoning (reasoning_content), the
// final channel and a commentary channel addressed to no one (a preamble)
// its text, and each commentary message addressed to a function the
// request offered (offered, see OfferedFunctions) a call (type "function",
// ids "call_harmony_<n>" in their order). A content that does not parse
// whole (a channel it does not know, a call to a function not offered or
// whose arguments are no JSON object) stays as it is. The check costs one
// prefix test of each finished message.
func harmonyChannels(c *openai.ChatCompletion, offered []string) {
	for i := range c.Choices {
		ch := &c.Choices[i]
		m := &ch.Message
		if ch.FinishReason == "" || len(m.ToolCalls) > 0 || reasoningOf(m) != "" || !harmonyOpening(m.Content) {
			continue
		}
		text, reasoning, calls, ok := parseHarmony(m.Content, offered)
		if !ok {
			continue
		}
		m.Content, m.ToolCalls = text, calls
		if reasoning != "" {
			extra := maps.Clone(m.JSON.ExtraFields)
			if extra == nil {
				extra = map[string]respjson.Field{}
			}
			raw, _ := json.Marshal(reasoning)
			extra[reasoningContent] = respjson.NewField(string(raw))
			m.JSON.ExtraFields = extra
		}
	}
}

// harmonyOpening reports whether content opens with a harmony message.
func harmonyOpening(content string) bool {
	_, _, ok := harmonyRole(strings.TrimLeft(content, " \n"))
	return ok
}

// harmonyRole returns the recipient a message's role section names (the
// `to=functions.NAME` harmony allows before `<|channel|>` as well as
// after it; "" for none) and what follows the message's `<|channel|>`;
// ok is false when s does not open with an assistant message's header
// (its `<|start|>assistant` may be absent, as at the start of an output).
func harmonyRole(s string) (recipient, rest string, ok bool) {
	s = strings.TrimLeft(strings.TrimPrefix(s, harmonyStart+"assistant"), " ")
	if r, found := strings.CutPrefix(s, "to="); found {
		end := strings.IndexAny(r, " <")
		if end <= 0 {
			return "", "", false
		}
		recipient, s = r[:end], strings.TrimLeft(r[end:], " ")
	}
	rest, ok = strings.CutPrefix(s, harmonyChannel)
	return recipient, rest, ok
}

// parseHarmony returns the text, reasoning and calls of content, a run of
// harmony messages, the bodies of the messages of one kind a line apart
// (as vLLM's parse_chat_output joins them); ok is false when a message
// does not parse.
func parseHarmony(content string, offered []string) (text, reasoning string, calls []openai.ChatCompletionMessageToolCallUnion, ok bool) {
	var t, r []string
	s := strings.TrimLeft(content, " \n")
	for s != "" {
		to, head, opened := harmonyRole(s)
		header, rest, found := strings.Cut(head, harmonyMessage)
		if !opened || !found {
			return "", "", nil, false
		}
		body, next := cutHarmonyBody(rest)
		channel, recipient := harmonyHeader(header)
		if to != "" {
			recipient = to
		}
		switch {
		case recipient != "":
			name := strings.TrimPrefix(recipient, "functions.")
			args, isObject := markupArgs(body)
			if !slices.Contains(offered, name) || !isObject {
				return "", "", nil, false
			}
			calls = append(calls, markupCall("harmony", len(calls), name, args))
		case channel == "analysis":
			r = append(r, body)
		case channel == "final" || channel == "commentary":
			t = append(t, body)
		default:
			return "", "", nil, false
		}
		s = next
	}
	return strings.TrimSpace(strings.Join(t, "\n")), strings.TrimSpace(strings.Join(r, "\n")), calls, true
}

// cutHarmonyBody returns the body of the message rest begins with, up to
// the first token that closes it, and what follows that token (a
// `<|start|>` kept, as it opens the next message); a body no token closes
// runs to the end.
func cutHarmonyBody(rest string) (body, next string) {
	end, at := "", len(rest)
	for _, e := range harmonyEnds {
		if i := strings.Index(rest, e); i >= 0 && i < at {
			end, at = e, i
		}
	}
	if end == "" {
		return rest, ""
	}
	if end == harmonyStart {
		return rest[:at], rest[at:]
	}
	return rest[:at], rest[at+len(end):]
}

// harmonyHeader returns the channel and the recipient (`to=…`, "" for
// none) a message's header names.
func harmonyHeader(header string) (channel, recipient string) {
	for i, f := range strings.Fields(strings.ReplaceAll(header, harmonyConstrain, " ")) {
		switch {
		case strings.HasPrefix(f, "to="):
			recipient = strings.TrimPrefix(f, "to=")
		case i == 0:
			channel = f
		}
	}
	return channel, recipient
}
